#pragma once
// CRC-32 (zlib's) of files trainsim reads back: checkpoints, sweep state, point results. A
// flipped byte must stop a resume, not change its results silently.
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace trainsim {

std::uint32_t crc32_of(const std::string& bytes);

/// `j` with "format": `format` and a "crc32" over the rest, as indented text. Read back with
/// read_checked_json.
std::string checked_json_text(nlohmann::ordered_json j, int format);

/// Parses `text` written by checked_json_text; UserError "<source>: ..." if it does not parse,
/// its checksum does not match (damaged) or its format is not `format`.
nlohmann::json parse_checked_json(const std::string& text, int format, const std::string& source);

}  // namespace trainsim
