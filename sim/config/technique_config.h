#pragma once
// The experiment's `technique:` key: a name ("bp"), a name with its main parameter
// ("specbp@0.25" sets the threshold), or a mapping with `kind` and the technique's keys.
#include <yaml-cpp/yaml.h>

#include "sim/config/specs.h"
#include "sim/config/yaml_reader.h"

namespace trainsim {

/// Parses and validates `node`; nullptr node = the default technique.
TechniqueSpec parse_technique(const ConfigNode* node, const ConfigNode& parent);
/// Writes the resolved form: the bare name for techniques without parameters, else a
/// mapping with every key.
void emit_technique(YAML::Emitter& out, const TechniqueSpec& t);

}  // namespace trainsim
