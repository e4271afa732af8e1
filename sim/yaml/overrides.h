#pragma once
// --set key.path=value overrides, applied to a YAML tree before it is validated.
#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

namespace trainsim {

struct Override {
  std::string text;                   ///< as given, for messages
  std::vector<std::string> segments;  ///< key path split at '.'
  YAML::Node value;                   ///< the right-hand side parsed as YAML
};

/// Splits "a.b.c=value" and parses the value as YAML, so numbers, booleans, lists and
/// mappings work. UserError "--set <text>: ..." if malformed.
Override parse_override(const std::string& text);

/// Sets the value in `root` (a mapping or null), creating missing intermediate mappings;
/// numeric segments index into sequences. Returns the key path as the config cursor
/// spells it, so errors about the value can be attributed to the override.
std::string apply_override(YAML::Node root, const Override& o);

}  // namespace trainsim
