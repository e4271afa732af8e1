#include "sim/optim/optimizer_fields.h"

#include <stdexcept>

#include "sim/yaml/yaml_emit.h"

namespace trainsim {

namespace {

// lr_steps: epochs in [1, 10000], increasing, at most 64 of them.
void read_lr_steps(const ConfigNode& v, OptimizerSpec& s) {
  const std::vector<ConfigNode> items = v.as_sequence();
  if (items.size() > 64) v.fail("at most 64 epochs, got " + std::to_string(items.size()));
  s.lr_steps.clear();
  for (const ConfigNode& item : items) {
    const int e = item.as_int_in({1, 10000});
    if (!s.lr_steps.empty() && e <= s.lr_steps.back())
      item.fail("epochs must increase: " + std::to_string(e) + " after " +
                std::to_string(s.lr_steps.back()));
    s.lr_steps.push_back(e);
  }
}

bool has_schedule(const OptimizerSpec& s) {
  return !s.lr_steps.empty();
}

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
    {"lr_steps", &read_lr_steps,
     [](YAML::Emitter& o, const OptimizerSpec& s) {
       o << YAML::Flow << YAML::BeginSeq;
       for (int e : s.lr_steps) o << e;
       o << YAML::EndSeq;
     },
     &has_schedule},
    {"lr_factor",
     [](const ConfigNode& v, OptimizerSpec& s) { s.lr_factor = v.as_double_fraction(); },
     [](YAML::Emitter& o, const OptimizerSpec& s) { emit_double(o, s.lr_factor); }, &has_schedule},
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
