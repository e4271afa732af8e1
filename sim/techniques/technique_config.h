#pragma once
// The experiment's `technique:` key: a name ("bp"), a name with its main parameter
// ("specbp@0.25" sets the threshold), or a mapping with `kind` and the technique's keys.
#include <yaml-cpp/yaml.h>

#include "sim/spec/specs.h"
#include "sim/yaml/yaml_reader.h"

namespace trainsim {

/// Parses and validates `node`; nullptr node = the default technique.
TechniqueSpec parse_technique(const ConfigNode* node, const ConfigNode& parent);
/// `--set technique=NAME[@VALUE]` over an experiment whose technique is the mapping
/// `existing`: a mapping of kind NAME that keeps every key of `existing` NAME also has (and
/// sets NAME's shorthand key to VALUE), as compare --techniques does; `dropped` receives the
/// keys it leaves out. An unknown NAME is returned as given, for the parser to report.
YAML::Node merge_technique_override(const YAML::Node& existing, const YAML::Node& value,
                                    std::vector<std::string>* dropped);
/// Writes the resolved form: the bare name for techniques without parameters, else a
/// mapping with every key.
void emit_technique(YAML::Emitter& out, const TechniqueSpec& t);

}  // namespace trainsim
