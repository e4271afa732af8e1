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

/// A device given in a config at `node`: a name or path (load_device()), or an inline mapping
/// (parse_device_node(), named after the key). Errors name the node.
std::shared_ptr<const DeviceModelSpec> parse_device_ref(const ConfigNode& node,
                                                        const std::string& file);

/// Stems of the shipped device files, sorted.
std::vector<std::string> shipped_device_names();

}  // namespace trainsim
