#pragma once
// The keys under training.optimizer besides `kind`: how each is read, checked and written.
// The optimizer registry decides which keys a kind accepts; this table knows their types.
#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

#include "sim/spec/specs.h"
#include "sim/yaml/yaml_reader.h"

namespace trainsim {

struct OptimizerField {
  const char* key;
  void (*read)(const ConfigNode& value, OptimizerSpec& opt);
  void (*write)(YAML::Emitter& out, const OptimizerSpec& opt);
  /// Whether the resolved configuration writes the key (nullptr: always). The schedule's keys
  /// are written only with a schedule, so a run without one resolves to what it did before
  /// they existed.
  bool (*written)(const OptimizerSpec& opt) = nullptr;
};

/// The field for `key`; std::logic_error if the registry lists a key this table lacks.
const OptimizerField& optimizer_field(const std::string& key);

/// Allowed values of `reduction`.
const std::vector<std::string>& reductions();

}  // namespace trainsim
