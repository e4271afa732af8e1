#pragma once
// Finding the network file an experiment's `network: <string>` refers to.
#include <optional>
#include <string>
#include <vector>

namespace trainsim {

/// True if `ref` is a path (contains '/' or ends in .yaml) rather than a network name.
bool is_network_path(const std::string& ref);

/// The file `ref` names, for an experiment read from `experiment_path`:
///   name: <configs root>/networks/<name>.yaml, then <experiment dir>/../networks/<name>.yaml
///   path: as given if absolute, else relative to the experiment's folder, then to the cwd.
/// Returns nullopt if none exists; `tried` receives every candidate in order.
std::optional<std::string> find_network_file(const std::string& ref,
                                             const std::string& experiment_path,
                                             std::vector<std::string>* tried);

/// Names of the network files shipped in <configs root>/networks, sorted.
std::vector<std::string> shipped_network_names();

}  // namespace trainsim
