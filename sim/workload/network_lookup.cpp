#include "sim/workload/network_lookup.h"

#include "sim/yaml/config_files.h"

namespace trainsim {

bool is_network_path(const std::string& ref) {
  return is_config_path(ref);
}

std::optional<std::string> find_network_file(const std::string& ref,
                                             const std::string& experiment_path,
                                             std::vector<std::string>* tried) {
  return find_referenced_file(ref, "networks", experiment_path, tried);
}

std::vector<std::string> shipped_network_names() {
  return shipped_config_names("networks");
}

}  // namespace trainsim
