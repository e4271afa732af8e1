#pragma once
// Device specs from YAML text, as if read from a file called dev.yaml (errors name it).
#include <catch2/catch.hpp>

#include <memory>
#include <string>

#include "sim/devices/device_config.h"
#include "sim/yaml/yaml_file.h"
#include "tests/support/config_errors.h"

namespace trainsim::test {

inline std::shared_ptr<const DeviceModelSpec> device_from_text(const std::string& yaml) {
  auto origin = std::make_shared<ConfigOrigin>();
  origin->file = "dev.yaml";
  return parse_device_node(ConfigNode(parse_yaml_text(yaml, "dev.yaml"), "", origin), "dev.yaml",
                           "dev");
}

/// Checks that `yaml` is refused with one line at `needle`'s position and key `key`, mentioning
/// `what`.
inline void check_device_error(const std::string& yaml, const std::string& needle,
                               const std::string& key, const std::string& what) {
  INFO(yaml);
  check_error(error_of([&] { device_from_text(yaml); }), "dev.yaml", pos_of(yaml, needle), key,
              what);
}

}  // namespace trainsim::test
