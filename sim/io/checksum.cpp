#include "sim/io/checksum.h"

#include <zlib.h>

#include <algorithm>
#include <cstdio>

#include "sim/core/error.h"

namespace trainsim {

std::uint32_t crc32_of(const std::string& bytes) {
  uLong crc = crc32(0L, Z_NULL, 0);
  // zlib takes at most uInt bytes at a time.
  for (std::size_t at = 0; at < bytes.size();) {
    const auto n = static_cast<uInt>(std::min<std::size_t>(bytes.size() - at, 1u << 30));
    crc = crc32(crc, reinterpret_cast<const Bytef*>(bytes.data() + at), n);
    at += n;
  }
  return static_cast<std::uint32_t>(crc);
}

namespace {

// The checksum covers the compact text of everything but itself, so indentation and key
// order on disk do not matter (nlohmann::json sorts keys).
std::string crc_text(nlohmann::json j) {
  j.erase("crc32");
  char hex[16];
  std::snprintf(hex, sizeof hex, "%08x", static_cast<unsigned>(crc32_of(j.dump())));
  return hex;
}

}  // namespace

std::string checked_json_text(nlohmann::ordered_json j, int format) {
  j["format"] = format;
  j["crc32"] = crc_text(nlohmann::json::parse(j.dump()));
  return j.dump(2) + "\n";
}

nlohmann::json parse_checked_json(const std::string& text, int format, const std::string& source) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception&) {
    throw UserError(source + ": damaged (not JSON)");
  }
  if (!j.is_object() || !j.contains("crc32") || !j["crc32"].is_string())
    throw UserError(source + ": no checksum (written by an older trainsim, or not trainsim's)");
  if (j["crc32"].get<std::string>() != crc_text(j))
    throw UserError(source + ": damaged (its checksum does not match)");
  if (!j.contains("format") || j["format"] != format)
    throw UserError(source + ": format " + j.value("format", nlohmann::json()).dump() +
                    ", this trainsim reads " + std::to_string(format));
  return j;
}

}  // namespace trainsim
