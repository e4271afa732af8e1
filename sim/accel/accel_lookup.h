#pragma once
// Finding the accelerator and energy-table files a name or path refers to.
#include <optional>
#include <string>
#include <vector>

#include "sim/yaml/config_files.h"

namespace trainsim {

/// The accelerator file `ref` names: a path as given, a name as
/// <configs root>/accelerators/<name>.yaml. UserError for an unknown name, listing the
/// shipped ones (a missing path is left to the file reader, which names the file).
std::string find_accelerator_file(const std::string& ref);

/// The same for a standalone energy table: a path, or <configs root>/energy/<name>.yaml.
std::string find_energy_table_file(const std::string& ref);

/// The same for a device: a path, or <configs root>/devices/<name>.yaml.
std::string find_device_file(const std::string& ref);

/// The energy file an accelerator's `energy: <ref>` refers to, for an accelerator read
/// from `accelerator_path`:
///   name: <configs root>/energy/<name>.yaml, then <accelerator dir>/../energy/<name>.yaml
///   path: as given if absolute, else relative to the accelerator's folder, then to the cwd.
/// Returns nullopt if none exists; `tried` receives every candidate in order.
std::optional<std::string> find_energy_file(const std::string& ref,
                                            const std::string& accelerator_path,
                                            std::vector<std::string>* tried);

/// The accelerator file an experiment's `accelerator: <ref>` refers to, for an experiment
/// read from `experiment_path`, found like its network:
///   name: <configs root>/accelerators/<name>.yaml, then
///         <experiment dir>/../accelerators/<name>.yaml
///   path: as given if absolute, else relative to the experiment's folder, then to the cwd.
/// Returns nullopt if none exists; `tried` receives every candidate in order.
std::optional<std::string> find_experiment_accelerator_file(const std::string& ref,
                                                            const std::string& experiment_path,
                                                            std::vector<std::string>* tried);

}  // namespace trainsim
