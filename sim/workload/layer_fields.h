#pragma once
// The per-type layer keys (units, kernel, ...): how each is read, checked and written.
// The layer registry decides which keys a type accepts; this table knows each key's type
// and range, so the parser and resolved_yaml() cannot disagree about a field.
#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

#include "sim/spec/specs.h"
#include "sim/yaml/yaml_reader.h"

namespace trainsim {

struct LayerField {
  const char* key;
  void (*read)(const ConfigNode& value, LayerSpec& layer);
  void (*write)(YAML::Emitter& out, const LayerSpec& layer);
};

/// The field for `key`; throws std::logic_error if the registry lists a key this table
/// does not know (a trainsim bug, not a user error).
const LayerField& layer_field(const std::string& key);

}  // namespace trainsim
