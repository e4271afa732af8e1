#include "sim/config/optimizer_fields.h"

#include <stdexcept>

#include "sim/yaml/yaml_emit.h"

namespace trainsim {

namespace {

const OptimizerField kOptimizerFields[] = {
    {"lr", [](const ConfigNode& v, OptimizerSpec& s) { s.lr = v.as_double_positive(); },
     [](YAML::Emitter& o, const OptimizerSpec& s) { emit_double(o, s.lr); }},
    {"momentum", [](const ConfigNode& v, OptimizerSpec& s) { s.momentum = v.as_double_unit(); },
     [](YAML::Emitter& o, const OptimizerSpec& s) { emit_double(o, s.momentum); }},
    {"weight_decay",
     [](const ConfigNode& v, OptimizerSpec& s) { s.weight_decay = v.as_double_non_negative(); },
     [](YAML::Emitter& o, const OptimizerSpec& s) { emit_double(o, s.weight_decay); }},
    {"reduction",
     [](const ConfigNode& v, OptimizerSpec& s) { s.reduction = v.as_choice(reductions()); },
     [](YAML::Emitter& o, const OptimizerSpec& s) { o << s.reduction; }},
    {"clip", [](const ConfigNode& v, OptimizerSpec& s) { s.clip = v.as_double_non_negative(); },
     [](YAML::Emitter& o, const OptimizerSpec& s) { emit_double(o, s.clip); }},
    {"beta1", [](const ConfigNode& v, OptimizerSpec& s) { s.beta1 = v.as_double_unit(); },
     [](YAML::Emitter& o, const OptimizerSpec& s) { emit_double(o, s.beta1); }},
    {"beta2", [](const ConfigNode& v, OptimizerSpec& s) { s.beta2 = v.as_double_unit(); },
     [](YAML::Emitter& o, const OptimizerSpec& s) { emit_double(o, s.beta2); }},
    {"epsilon", [](const ConfigNode& v, OptimizerSpec& s) { s.epsilon = v.as_double_positive(); },
     [](YAML::Emitter& o, const OptimizerSpec& s) { emit_double(o, s.epsilon); }},
};

}  // namespace

const OptimizerField& optimizer_field(const std::string& key) {
  for (const auto& f : kOptimizerFields) {
    if (key == f.key) return f;
  }
  throw std::logic_error("config parser has no reader for optimizer key '" + key + "'");
}

const std::vector<std::string>& reductions() {
  static const std::vector<std::string> kReductions = {"sum", "mean"};
  return kReductions;
}

}  // namespace trainsim
