#pragma once
// Finding the config file a name or a path refers to: the shipped configs tree
// (<configs root>, sim/core/paths.h), a private tree beside the referring file, or a path.
#include <optional>
#include <string>
#include <vector>

namespace trainsim {

/// True if `ref` is a path (contains '/' or ends in .yaml) rather than a name.
bool is_config_path(const std::string& ref);
/// The file a config refers to by `ref` from the file `referrer` (an experiment naming its
/// network or accelerator, an accelerator naming its energy table):
///   name: <configs root>/<folder>/<name>.yaml, then <referrer dir>/../<folder>/<name>.yaml
///   path: as given if absolute, else relative to the referrer's folder, then to the cwd.
/// Returns nullopt if none exists; `tried` receives every candidate in order.
std::optional<std::string> find_referenced_file(const std::string& ref, const std::string& folder,
                                                const std::string& referrer,
                                                std::vector<std::string>* tried);
/// The name a config file gives what it holds by default: its file name without folder and
/// extension ("configs/networks/lenet5.yaml" -> "lenet5").
std::string config_file_stem(const std::string& path);
/// Stems of the .yaml files in <configs root>/<folder>, sorted.
std::vector<std::string> shipped_config_names(const std::string& folder);

}  // namespace trainsim
