#pragma once
// Reading device files (configs/devices/*.yaml) into validated device specs
// (sim/devices/device_model.h). A device file is a mapping with `kind:` (a registered device
// kind, `trainsim list devices`), optional `name:` and `description:`, and the kind's own keys;
// anything else is an error naming the file, line, column and key.
#include <memory>
#include <string>
#include <vector>

#include "sim/devices/device_model.h"
#include "sim/yaml/yaml_reader.h"

namespace trainsim {

/// Parses a device: `ref` is a path if it contains '/' or ends in .yaml, otherwise a name
/// looked up as <configs root>/devices/<name>.yaml.
std::shared_ptr<const DeviceModelSpec> load_device(const std::string& ref);

/// Parses the device mapping at `node`; `file` is the file holding it (relative references
/// resolve against it) and `default_name` the name when the mapping has no `name:`.
std::shared_ptr<const DeviceModelSpec> parse_device_node(const ConfigNode& node,
                                                         const std::string& file,
                                                         const std::string& default_name);

/// Stems of the shipped device files, sorted.
std::vector<std::string> shipped_device_names();

}  // namespace trainsim
