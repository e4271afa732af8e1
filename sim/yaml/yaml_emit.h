#pragma once
// Emitting values so that the config parser reads them back exactly.
#include <yaml-cpp/yaml.h>

#include <string>
#include <string_view>

namespace trainsim {

/// A scalar (a key, mostly) that yaml-cpp writes plain if its own test says it may: a
/// regular expression tried at every character, most of what emitting a config costs (a
/// sweep point's config.resolved.yaml). Text a quick test clears (ASCII letters, digits and
/// `_ . - +`, not starting with `-` alone or `+`, not a null word) is written without it;
/// anything else goes through yaml-cpp's test. Not for use right after a string-format
/// manipulator (YAML::DoubleQuoted and the like), which only yaml-cpp's own write honours.
struct Plain {
  std::string_view text;
};
YAML::Emitter& operator<<(YAML::Emitter& out, Plain p);

/// Shortest text that parses back to exactly `v` (std::to_chars round-trip guarantee).
std::string format_double(double v);

/// Writes `v` as a plain YAML number that round-trips bit for bit.
void emit_double(YAML::Emitter& out, double v);

/// Writes `s`, quoted when plain YAML would read it as something other than text
/// (empty, "null", "~").
void emit_string(YAML::Emitter& out, const std::string& s);

}  // namespace trainsim
