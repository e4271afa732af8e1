#include <stdexcept>

#include "sim/spec/specs.h"
#include "sim/techniques/adagp.h"
#include "sim/techniques/backprop.h"
#include "sim/techniques/specbp.h"
#include "sim/techniques/technique.h"
#include "sim/techniques/training_technique.h"

namespace trainsim {

const std::vector<TechniqueInfo>& techniques() {
  static const std::vector<TechniqueInfo> all = [] {
    // One line per technique; each description lives in the technique's own file.
    std::vector<TechniqueInfo> v = {
        backprop_technique(),
        sample_backprop_technique(),
        specbp_technique(),
        adagp_technique(AdagpDesign::kMax),
        adagp_technique(AdagpDesign::kEfficient),
        adagp_technique(AdagpDesign::kLow),
    };
    // Their roles get ids in this order, so every build numbers them alike (checkpoints
    // keep per-role sums by id).
    for (const TechniqueInfo& t : v)
      for (const TechniqueRole& r : t.roles) register_role(r.name, r.computes);
    return v;
  }();
  return all;
}

OpRole technique_role(const std::string& name) {
  for (const TechniqueInfo& t : techniques())
    for (const TechniqueRole& r : t.roles)
      if (name == r.name) {
        OpRole role;
        parse_role(name, role);
        return role;
      }
  throw std::logic_error("no technique declares the op role '" + name + "'");
}

const TechniqueRole* technique_role_info(OpRole role) {
  const std::string name = role_name(role);
  for (const TechniqueInfo& t : techniques())
    for (const TechniqueRole& r : t.roles)
      if (name == r.name) return &r;
  return nullptr;
}

const TechniqueInfo* find_technique(const std::string& name) {
  for (const auto& t : techniques())
    if (t.name == name) return &t;
  return nullptr;
}

const TechniqueInfo& technique_info(const TechniqueSpec& spec) {
  const TechniqueInfo* info = find_technique(spec.kind);
  // Specs come from the parser, which accepts registered kinds only.
  if (info == nullptr) throw std::logic_error("unregistered technique '" + spec.kind + "'");
  return *info;
}

const std::vector<std::string>* TechniqueInfo::choices_of(const std::string& key) const {
  for (const auto& [k, names] : choices)
    if (k == key) return &names;
  return nullptr;
}

const BatchRecipe& ShapeOnlyPlan::recipe(int kind) const {
  if (kind < 0 || kind >= static_cast<int>(recipes.size()))
    throw std::logic_error("shape-only plan: batch kind " + std::to_string(kind) +
                           " has no recipe");
  return recipes[static_cast<std::size_t>(kind)];
}

bool TechniqueHardware::on_second_unit(OpRole role) const {
  for (OpRole r : second_unit_roles)
    if (r == role) return true;
  return false;
}

TechniqueHardware technique_hardware(const TechniqueSpec& spec, const NetShape& net,
                                     int word_bytes) {
  const TechniqueInfo& info = technique_info(spec);
  return info.hardware ? info.hardware(spec, net, word_bytes) : TechniqueHardware{};
}

AcceleratorSpec own_array_spec(const TechniqueHardware& hw, const AcceleratorSpec& device) {
  AcceleratorSpec unit = device;
  unit.name += hw.unit_suffix;
  if (hw.unit_rows > 0) unit.rows = hw.unit_rows;
  if (hw.unit_cols > 0) unit.cols = hw.unit_cols;
  return unit;
}

std::string TechniqueSpec::label() const {
  const TechniqueInfo* info = find_technique(kind);
  return info && info->label ? info->label(*this) : kind;
}

std::unique_ptr<TrainingTechnique> make_technique(const TechniqueSpec& spec, Network<float>& net) {
  return technique_info(spec).make(spec, net);
}

}  // namespace trainsim
