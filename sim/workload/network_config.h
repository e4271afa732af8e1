#pragma once
// Validating a network mapping (from a network file or inlined in an experiment), and
// reading a network file.
#include <string>
#include <vector>

#include "sim/spec/specs.h"
#include "sim/yaml/yaml_reader.h"

namespace trainsim {

/// The init schemes an `init.scheme` may name.
const std::vector<std::string>& init_schemes();

/// Builds a NetworkSpec from `node`. `default_name` is used when the mapping has no `name`;
/// `source` is stored as NetworkSpec::source.
NetworkSpec parse_network(const ConfigNode& node, const std::string& default_name,
                          const std::string& source);

/// Parses one network file.
NetworkSpec load_network(const std::string& path);

}  // namespace trainsim
