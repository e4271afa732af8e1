#pragma once
// Parses `hype:` of an experiment (sim/hype/hype_spec.h; keys in docs/config.md#hype).
#include <string>

#include "sim/hype/hype_spec.h"
#include "sim/spec/specs.h"
#include "sim/spec/system_spec.h"
#include "sim/yaml/yaml_reader.h"

namespace trainsim {

/// `node` is the experiment's `hype:` mapping; device references resolve against
/// `experiment_path`. UserError naming the key on bad input: an unknown device kind or policy,
/// an FPGA design beyond its resources, offload devices that do not divide among the GPUs, a
/// link for devices the system does not have, a power cap below the system's static power.
/// With `system` (the experiment's `system:`, parsed, at `system_node`), the devices are the
/// system's: its first kind of device the GPUs, a second kind (if any) the offload devices,
/// and `gpu`, `gpus`, `offload` and `offloads` may not be given. The devices still talk over
/// the host as Hype-training's do (`hype.links`), so the system may not set links.
HypeSpec parse_hype(const ConfigNode& node, const std::string& experiment_path,
                    const SystemSpec* system = nullptr, const ConfigNode* system_node = nullptr);

/// The system a `hype:` that names its own devices implies (`h` parsed from `node` without a
/// system): its GPUs, then its offload devices, as `system.devices` would list them, their keys
/// `hype.gpu` and `hype.offload`. So every Hype run has the experiment's one system of devices;
/// `hype:` is the settings of the placement over it.
SystemSpec implied_system(const ConfigNode& node, const HypeSpec& h,
                          const std::string& experiment_path, const SimulationSpec& sim);

}  // namespace trainsim
