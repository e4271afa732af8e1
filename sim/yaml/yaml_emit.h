#pragma once
// Emitting values so that the config parser reads them back exactly.
#include <yaml-cpp/yaml.h>

#include <string>

namespace trainsim {

/// Shortest text that parses back to exactly `v` (std::to_chars round-trip guarantee).
std::string format_double(double v);

/// Writes `v` as a plain YAML number that round-trips bit for bit.
void emit_double(YAML::Emitter& out, double v);

/// Writes `s`, quoted when plain YAML would read it as something other than text
/// (empty, "null", "~").
void emit_string(YAML::Emitter& out, const std::string& s);

}  // namespace trainsim
