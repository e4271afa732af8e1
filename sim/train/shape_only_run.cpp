#include "sim/train/shape_only_run.h"

#include <stdexcept>

#include "sim/core/error.h"
#include "sim/core/interrupt.h"
#include "sim/techniques/technique.h"
#include "sim/train/run_limits.h"
#include "sim/train/trainer.h"
#include "sim/workload/step_order.h"

namespace trainsim {

OpTotals times(const OpTotals& t, std::int64_t n) {
  OpTotals r;
  r.stats = t.stats.repeated(n);
  r.stats.pes = t.stats.pes;
  r.ops = checked_mul(t.ops, n);
  r.elapsed_cycles = checked_mul(t.elapsed_cycles, n);
  r.update_cycles = checked_mul(t.update_cycles, n);
  return r;
}

void accumulate(OpTotals& into, const OpTotals& t) {
  const std::int64_t pes = t.stats.pes ? t.stats.pes : into.stats.pes;
  into.stats += t.stats;
  into.stats.pes = pes;
  into.ops = checked_add(into.ops, t.ops);
  into.elapsed_cycles = checked_add(into.elapsed_cycles, t.elapsed_cycles);
  into.update_cycles = checked_add(into.update_cycles, t.update_cycles);
}

namespace {

// The run is counted: the accelerator prices every sum of the record once.
void price_record(ShapeOnlyResult& r, const AcceleratorSpec& acc) {
  for (ShapeOnlyEpoch& ep : r.epochs) price_totals(ep.train, acc), price_totals(ep.eval, acc);
  price_totals(r.train, acc);
  price_totals(r.eval, acc);
  for (OpTotals& t : r.kinds) price_totals(t, acc);
  for (auto* m : {&r.per_batch, &r.all_batches})
    for (auto& entry : *m) price_totals(entry.second, acc);
  for (auto& entry : r.eval_per_batch) price_totals(entry.second, acc);
}

// Emits one batch's passes to an op stream in the order the numerics make them, as the
// technique's recipe for the batch's kind composes them.
class BatchEmitter final : public BatchPasses {
 public:
  explicit BatchEmitter(OpStream& s) : s_(s), net_(s.shape()) {}

  void train(const BatchRecipe& r, int b) {
    b_ = b;
    if (r.phase >= 0) s_.on_phase(r.phase);
    // A batch without a backward pass says what it runs instead; none would be backprop's.
    if (!r.backprop && !r.emit)
      throw std::logic_error("a forward-only batch recipe without its passes (BatchRecipe::emit)");
    if (r.emit) {
      r.emit(*this);
    } else {
      backprop();
      updates();
    }
    s_.on_batch_end(Phase::kTrain, b);
  }

  void eval(int b) {
    b_ = b;
    forward_all();
    s_.on_batch_end(Phase::kEval, b);
  }

  const NetShape& shape() const override { return net_; }
  void backprop() override {
    forward_all();
    backward();
  }
  void forward(std::size_t layer) override { s_.on_forward(layer, b_); }
  void technique_op(std::size_t layer, int what, std::int64_t n) override {
    s_.on_technique_op(layer, what, n);
  }
  void update(std::size_t layer) override { s_.on_update(layer, b_); }
  void updates() override {
    for (const StepEvent& e : update_events(net_)) s_.on_update(e.layer, b_);
  }

 private:
  void forward_all() {
    for (const StepEvent& e : forward_events(net_)) s_.on_forward(e.layer, b_);
  }
  // The order is sim/workload/step_order.h's, which the op DAG of an iteration follows too.
  void backward() {
    for (const StepEvent& e : backward_events(net_)) {
      switch (e.slot) {
        case LayerOpSlot::kLossGrad:
          s_.on_loss_grad(e.layer, b_);
          break;
        case LayerOpSlot::kGradSum:
          s_.on_grad_sum(e.layer, b_);
          break;
        case LayerOpSlot::kBackwardWeight:
          s_.on_backward_weight(e.layer, b_);
          break;
        case LayerOpSlot::kBackwardData:
          s_.on_backward_data(e.layer, b_);
          break;
        case LayerOpSlot::kForward:
        case LayerOpSlot::kUpdate:
          break;  // not backward events
      }
    }
  }

  OpStream& s_;
  const NetShape& net_;
  int b_ = 0;  // the batch's samples
};

}  // namespace

void emit_training_batch(const ExperimentSpec& spec, OpStream& stream, int kind, int batch) {
  const ShapeOnlyPlan plan = technique_info(spec.sim.technique).shape_only(spec.sim.technique);
  BatchEmitter(stream).train(plan.recipe(kind), batch);
}

std::string shape_only_techniques() {
  std::string names;
  for (const TechniqueInfo& info : techniques())
    if (info.shape_only) names += (names.empty() ? "" : ", ") + info.name;
  return names;
}

void check_shape_only_technique(const ExperimentSpec& spec) {
  const TechniqueSpec& t = spec.sim.technique;
  if (technique_info(t).shape_only) return;
  throw UserError("technique '" + t.label() +
                  "' cannot run with numerics: none: what it does depends on the data "
                  "(shape-only runs support " +
                  shape_only_techniques() + ")");
}

ShapeOnlyResult run_shape_only(const ExperimentSpec& spec, const DatasetShape& data,
                               AcceleratorSession& session) {
  check_shape_only_technique(spec);
  const ShapeOnlyPlan plan = technique_info(spec.sim.technique).shape_only(spec.sim.technique);
  if (data.train <= 0)
    throw UserError("dataset '" + spec.dataset.name + "' has no training samples");
  BatchEmitter emit(session);
  ShapeOnlyResult r;
  const std::size_t kinds = plan.recipes.size();
  for (const BatchRecipe& recipe : plan.recipes) r.kind_names.push_back(recipe.name);
  r.kinds.resize(kinds);
  auto per_batch = [&](int kind, int b) -> const OpTotals& {
    auto it = r.per_batch.find({kind, b});
    if (it != r.per_batch.end()) return it->second;
    session.record().take_epoch_sums();
    emit.train(plan.recipe(kind), b);
    return r.per_batch.emplace(std::make_pair(kind, b), session.record().take_epoch_sums()[0])
        .first->second;
  };
  auto eval_batch = [&](int b) -> const OpTotals& {
    auto it = r.eval_per_batch.find(b);
    if (it != r.eval_per_batch.end()) return it->second;
    session.record().take_epoch_sums();
    emit.eval(b);
    return r.eval_per_batch.emplace(b, session.record().take_epoch_sums()[1]).first->second;
  };

  const std::int64_t bs = spec.training.batch_size;
  const EpochBatches split = spec.training.epoch_batches(data.train);
  const std::int64_t rest = split.rest, batches = split.count();
  // The sums pass the counters' range in epoch e + 1 at the latest, before anything is written:
  // the epochs before it fit (sim/train/run_limits.h).
  int e = 0;
  try {
    for (; e < spec.training.epochs; ++e) {
      check_interrupt();
      ShapeOnlyEpoch ep;
      ep.batches.assign(kinds, 0);
      // Count the epoch's batches of each kind; the last (partial) batch separately.
      std::vector<std::int64_t> full_kinds(kinds, 0);
      int last_kind = 0;
      for (std::int64_t i = 0; i < batches; ++i) {
        const int kind = plan.kind(e, i);
        plan.recipe(kind);  // a kind the plan has (std::logic_error otherwise)
        ++ep.batches[static_cast<std::size_t>(kind)];
        if (rest && i == batches - 1)
          last_kind = kind;
        else
          ++full_kinds[static_cast<std::size_t>(kind)];
      }
      for (int k = 0; k < static_cast<int>(kinds); ++k) {
        const std::int64_t n = full_kinds[static_cast<std::size_t>(k)];
        if (n == 0) continue;
        const OpTotals part = times(per_batch(k, static_cast<int>(bs)), n);
        r.batch_counts[{k, static_cast<int>(bs)}] += n;
        accumulate(ep.train, part);
        accumulate(r.kinds[static_cast<std::size_t>(k)], part);
      }
      if (rest) {
        const OpTotals& last = per_batch(last_kind, static_cast<int>(rest));
        ++r.batch_counts[{last_kind, static_cast<int>(rest)}];
        accumulate(ep.train, last);
        accumulate(r.kinds[static_cast<std::size_t>(last_kind)], last);
      }
      // Evaluation: the test set's forward passes after every epoch, in the Trainer's batches.
      const std::int64_t eb = spec.training.eval_batch_size;
      const std::int64_t tfull = data.test / eb, trest = data.test % eb;
      if (tfull) accumulate(ep.eval, times(eval_batch(static_cast<int>(eb)), tfull));
      if (trest) accumulate(ep.eval, eval_batch(static_cast<int>(trest)));
      accumulate(r.train, ep.train);
      accumulate(r.eval, ep.eval);
      r.epochs.push_back(ep);
    }
  } catch (const CounterOverflow& o) {
    run_exceeds_counters(o, spec,
                         {e + 1, data.train, session.hardware().own_model.max_outputs > 0});
  }
  // The run's sums (the per-layer table, the units' and phases' work) are read once it ends.
  session.record().price_run_sums();
  for (const auto& [key, t] : r.per_batch) r.all_batches[key] = times(t, r.batch_counts.at(key));
  price_record(r, spec.sim.accelerator);
  return r;
}

}  // namespace trainsim
