#include "sim/techniques/technique_keys.h"

#include <yaml-cpp/yaml.h>

#include <stdexcept>

#include "sim/yaml/key_ranges.h"
#include "sim/yaml/yaml_emit.h"

namespace trainsim {

std::string parse_choice(const TechniqueInfo& info, const std::string& key, const ConfigNode& v) {
  const std::vector<std::string>* names = info.choices_of(key);
  if (names == nullptr)
    throw std::logic_error("technique " + info.name + " lists no names for its key " + key);
  return v.as_choice(*names);
}

void parse_unit(const ConfigNode& node, const TechniqueInfo& info, TechniqueSpec& t) {
  ConfigMap m = node.as_map();
  m.allow_only(info.unit_keys);
  if (auto v = m.get("array")) t.unit = parse_choice(info, "unit.array", *v);
  if (auto v = m.get("rows")) t.unit_rows = v->as_int_in(key_range::kUnitExtent);
  if (auto v = m.get("cols")) t.unit_cols = v->as_int_in(key_range::kUnitExtent);
}

void emit_unit(YAML::Emitter& out, const TechniqueSpec& t, const TechniqueInfo& info) {
  out << YAML::BeginMap;
  for (const std::string& key : info.unit_keys) {
    out << YAML::Key << Plain{key} << YAML::Value;
    if (key == "array")
      emit_string(out, t.unit);
    else
      out << (key == "rows" ? t.unit_rows : t.unit_cols);
  }
  out << YAML::EndMap;
}

}  // namespace trainsim
