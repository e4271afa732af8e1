#pragma once
// A network spec from YAML text, read as a network file would be.
#include <memory>
#include <string>

#include "sim/workload/network_config.h"
#include "sim/yaml/yaml_file.h"

namespace trainsim::test {

inline NetworkSpec network_from_yaml(const std::string& text,
                                     const std::string& file = "net.yaml") {
  auto origin = std::make_shared<ConfigOrigin>();
  origin->file = file;
  return parse_network(ConfigNode(parse_yaml_text(text, file), "", origin), "net", file);
}

}  // namespace trainsim::test
