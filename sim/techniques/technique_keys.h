#pragma once
// Reading and writing the keys that several techniques share the form of: a key whose value is
// one of the names the technique lists for it, and the `unit:` mapping of a technique's own
// array. Each technique parses its own keys (TechniqueInfo::parse_keys) with these.
#include <string>

#include "sim/spec/specs.h"
#include "sim/techniques/technique.h"
#include "sim/yaml/yaml_reader.h"

namespace YAML {
class Emitter;
}

namespace trainsim {

/// The value of `key`, one of the names `info` lists for it (TechniqueInfo::choices).
std::string parse_choice(const TechniqueInfo& info, const std::string& key, const ConfigNode& v);
/// The `unit:` mapping: the keys `info` declares (unit_keys) of array, rows, cols.
void parse_unit(const ConfigNode& node, const TechniqueInfo& info, TechniqueSpec& t);
/// The `unit:` mapping's resolved value (its declared keys).
void emit_unit(YAML::Emitter& out, const TechniqueSpec& t, const TechniqueInfo& info);

}  // namespace trainsim
