#pragma once
// Parses `hype:` of an experiment (sim/hype/hype_spec.h; keys in docs/config.md#hype).
#include <string>

#include "sim/hype/hype_spec.h"
#include "sim/yaml/yaml_reader.h"

namespace trainsim {

/// `node` is the experiment's `hype:` mapping; device references resolve against
/// `experiment_path`. UserError naming the key on bad input: an unknown device kind or policy,
/// an FPGA design beyond its resources, offload devices that do not divide among the GPUs, a
/// link for devices the system does not have, a power cap below the system's static power.
HypeSpec parse_hype(const ConfigNode& node, const std::string& experiment_path);

}  // namespace trainsim
