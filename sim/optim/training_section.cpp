#include "sim/optim/training_section.h"

#include "sim/core/parallel.h"
#include "sim/optim/optimizer_fields.h"
#include "sim/optim/optimizer_registry.h"
#include "sim/yaml/key_ranges.h"
#include "sim/yaml/yaml_emit.h"

namespace trainsim {

namespace {

std::string known_optimizers() {
  std::string out;
  for (const auto& o : optimizers()) out += (out.empty() ? "" : ", ") + o.name;
  return out;
}

OptimizerSpec parse_optimizer(const ConfigNode& node) {
  ConfigMap m = node.as_map();
  OptimizerSpec opt;
  auto kind = m.get("kind");
  if (kind) opt.kind = kind->as_nonempty_string();
  const OptimizerInfo* info = find_optimizer(opt.kind);
  if (info == nullptr) {
    if (!kind) m.node().fail("the default optimizer '" + opt.kind + "' is not registered");
    kind->fail("unknown optimizer '" + opt.kind + "' (known: " + known_optimizers() + ")");
  }
  // Keys of other optimizers are rejected: a `momentum` under adam would silently do
  // nothing otherwise.
  std::vector<std::string> allowed = {"kind"};
  allowed.insert(allowed.end(), info->keys.begin(), info->keys.end());
  m.allow_only(allowed);
  for (const auto& key : info->keys) {
    if (auto v = m.get(key)) optimizer_field(key).read(*v, opt);
  }
  return opt;
}

TrainingSpec parse_training(const ConfigNode& node) {
  ConfigMap m = node.as_map();
  m.allow_only({"epochs", "batch_size", "eval_batch_size", "seed", "shuffle", "drop_last",
                "threads", "optimizer"});
  TrainingSpec t;
  t.threads = default_threads();
  if (auto v = m.get("epochs")) t.epochs = v->as_int_in(key_range::kEpochs);
  if (auto v = m.get("batch_size")) t.batch_size = v->as_int_in(key_range::kBatch);
  if (auto v = m.get("eval_batch_size")) t.eval_batch_size = v->as_int_in(key_range::kBatch);
  if (auto v = m.get("seed")) t.seed = v->as_uint64();
  if (auto v = m.get("shuffle")) t.shuffle = v->as_bool();
  if (auto v = m.get("drop_last")) t.drop_last = v->as_bool();
  // At most kMaxThreads: a numerics loop is cut into at most that many tasks, so more
  // threads could never work at once.
  if (auto v = m.get("threads")) t.threads = v->as_int_in(IntRange{1, kMaxThreads});
  if (auto v = m.get("optimizer")) t.optimizer = parse_optimizer(*v);
  return t;
}

void emit_optimizer(YAML::Emitter& out, const OptimizerSpec& opt) {
  out << YAML::BeginMap;
  out << YAML::Key << Plain{"kind"} << YAML::Value;
  emit_string(out, opt.kind);
  if (const OptimizerInfo* info = find_optimizer(opt.kind)) {
    for (const auto& key : info->keys) {
      const OptimizerField& field = optimizer_field(key);
      if (field.written != nullptr && !field.written(opt)) continue;
      out << YAML::Key << Plain{key} << YAML::Value;
      field.write(out, opt);
    }
  }
  out << YAML::EndMap;
}

class TrainingSection final : public ExperimentSection {
 public:
  std::vector<std::string> keys() const override { return {"training"}; }

  void parse(const ConfigMap& top, const SectionInput&, ExperimentSpec& spec) const override {
    spec.training.threads = default_threads();
    if (auto v = top.get("training")) spec.training = parse_training(*v);
  }

  void emit(YAML::Emitter& out, const ExperimentSpec& spec) const override {
    const TrainingSpec& t = spec.training;
    out << YAML::Key << Plain{"training"} << YAML::Value << YAML::BeginMap;
    out << YAML::Key << Plain{"epochs"} << YAML::Value << t.epochs;
    out << YAML::Key << Plain{"batch_size"} << YAML::Value << t.batch_size;
    out << YAML::Key << Plain{"eval_batch_size"} << YAML::Value << t.eval_batch_size;
    out << YAML::Key << Plain{"seed"} << YAML::Value << t.seed;
    out << YAML::Key << Plain{"shuffle"} << YAML::Value << t.shuffle;
    out << YAML::Key << Plain{"drop_last"} << YAML::Value << t.drop_last;
    out << YAML::Key << Plain{"threads"} << YAML::Value << t.threads;
    out << YAML::Key << Plain{"optimizer"} << YAML::Value;
    emit_optimizer(out, t.optimizer);
    out << YAML::EndMap;
  }
};

}  // namespace

const ExperimentSection& training_section() {
  static const TrainingSection s;
  return s;
}

}  // namespace trainsim
