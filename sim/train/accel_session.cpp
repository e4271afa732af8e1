#include "sim/train/accel_session.h"

#include "dataflows/registry.h"
#include "sim/accel/reference.h"

namespace trainsim {

AcceleratorSession::AcceleratorSession(const ExperimentSpec& spec, Network<float>& net)
    : spec_(spec),
      net_(net),
      dataflow_(&dataflow_or_throw(spec.sim.dataflow)),
      system_(SimSystem::instance()),
      fidelity_(parse_fidelity(spec.sim.fidelity)) {
  system_.configure(spec_.sim.accelerator, *dataflow_, fidelity_);
  const TechniqueSpec& t = spec_.sim.technique;
  if (t.kind == "specbp") {
    own_unit_ = t.unit == "own";
    store_in_dram_ = t.store == "dram";
    if (own_unit_) {
      AcceleratorSpec unit = spec_.sim.accelerator;
      unit.name += "-specbp-unit";
      if (t.unit_rows > 0) unit.rows = t.unit_rows;
      if (t.unit_cols > 0) unit.cols = t.unit_cols;
      system_.configure_second_unit(unit);
    }
  }
  for (auto& per_phase : layer_roles_) per_phase.resize(net.size());
  net_.set_observer(this);
}

AcceleratorSession::~AcceleratorSession() {
  net_.set_observer(nullptr);
}

const std::vector<LayerOps>& AcceleratorSession::ops_for(int batch) {
  if (batch == current_batch_) return *current_;
  auto it = lowered_.find(batch);
  if (it == lowered_.end()) {
    it = lowered_
             .emplace(batch, lower_network(net_, batch, spec_.sim.accelerator.word_bits,
                                           spec_.training.optimizer))
             .first;
  }
  current_batch_ = batch;
  current_ = &it->second;
  return *current_;
}

void AcceleratorSession::push_op(const Op& op) {
  OpRequest& req = pending_[static_cast<std::size_t>(unit_)].emplace_back();
  req.op = op;
  if (unit_ == 1) discarded_flags_.push_back(discarding_);
  if (fidelity_ == Fidelity::kCycle && op.kind != OpKind::kElementwise) {
    // The clocked array needs operand values of the op's shape; one set per shape.
    const std::string key = op.describe();
    auto it = operands_.find(key);
    if (it == operands_.end())
      it = operands_.emplace(key, make_operands(op, dataflow_->gemm_based(), 1)).first;
    req.values = &it->second;
  }
}

void AcceleratorSession::push(const std::optional<Op>& op) {
  if (op) push_op(*op);
}

void AcceleratorSession::on_forward(std::size_t layer, int batch) {
  push(ops_for(batch)[layer].forward);
}
void AcceleratorSession::on_loss_grad(std::size_t layer, int batch) {
  push(ops_for(batch)[layer].loss_grad);
}
void AcceleratorSession::on_backward_data(std::size_t layer, int batch) {
  push(ops_for(batch)[layer].backward_data);
}
void AcceleratorSession::on_backward_weight(std::size_t layer, int batch) {
  push(ops_for(batch)[layer].backward_weight);
}
void AcceleratorSession::on_update(std::size_t layer, int batch) {
  push(ops_for(batch)[layer].update);
}

void AcceleratorSession::on_unit(int unit, bool discarded) {
  unit_ = unit;
  discarding_ = discarded;
}

void AcceleratorSession::on_join() {
  flush(Phase::kTrain);
}

void AcceleratorSession::on_step(bool begin) {
  flush(Phase::kTrain);  // step boundaries are exact: nothing pending spans them
  if (begin) {
    step_begin_ = system_.cycles();
    return;
  }
  const std::int64_t c = system_.cycles() - step_begin_;
  step_cycles_ += c;
  epoch_step_cycles_ += c;
  ++steps_;
  ++epoch_steps_;
}

void AcceleratorSession::on_compare(std::size_t layer, int values) {
  // Subtract, absolute value and accumulate per output, then one compare with the threshold.
  Op op = Op::make_eltwise({values, 2, 0, 3}, OpRole::kCompare, static_cast<int>(layer));
  op.eltwise.dram = false;  // both softmax vectors are on chip
  op.word_bits = spec_.sim.accelerator.word_bits;
  push_op(op);
}

void AcceleratorSession::on_store(std::size_t layer, std::int64_t words) {
  // The forward pass's activations are copied into the label's slot: on chip they are
  // written to the store partition of the buffer; in DRAM they are streamed out.
  Op op = Op::make_eltwise({words, 0, 1, 0}, OpRole::kStore, static_cast<int>(layer));
  op.eltwise.dram = store_in_dram_;
  op.word_bits = spec_.sim.accelerator.word_bits;
  push_op(op);
}

void AcceleratorSession::flush(Phase phase) {
  if (pending_[0].empty() && pending_[1].empty()) return;
  const std::int64_t before = system_.cycles();
  if (own_unit_) {
    system_.run_parallel(pending_[0], pending_[1]);
  } else {
    // A shared array runs the second unit's work after the main unit's.
    system_.run(pending_[0]);
    system_.run(pending_[1]);
  }
  const std::int64_t elapsed = system_.cycles() - before;
  const int p = static_cast<int>(phase);
  const std::int64_t pes = spec_.sim.accelerator.pes();
  for (int u = 0; u < 2; ++u) {
    const auto& reqs = pending_[static_cast<std::size_t>(u)];
    for (std::size_t k = 0; k < reqs.size(); ++k) {
      const OpRequest& r = reqs[k];
      const bool update = r.op.role == OpRole::kUpdate;
      totals_[p].add(r.stats, pes, update);
      epoch_[p].add(r.stats, pes, update);
      layer_roles_[p][static_cast<std::size_t>(r.op.layer)][static_cast<int>(r.op.role)].add(
          r.stats, r.stats.pes);
      if (phase == Phase::kTrain) {
        unit_totals_[static_cast<std::size_t>(u)].add(r.stats, r.stats.pes);
        if (u == 1 && discarded_flags_[k]) discarded_.add(r.stats, r.stats.pes);
      }
    }
  }
  totals_[p].elapsed_cycles += elapsed;
  epoch_[p].elapsed_cycles += elapsed;
  pending_[0].clear();
  pending_[1].clear();
  discarded_flags_.clear();
}

void AcceleratorSession::on_batch_end(Phase phase, int batch) {
  flush(phase);
}

std::array<OpTotals, kNumPhases> AcceleratorSession::take_epoch() {
  std::array<OpTotals, kNumPhases> e = epoch_;
  epoch_ = {};
  return e;
}

std::pair<std::int64_t, std::int64_t> AcceleratorSession::take_epoch_steps() {
  auto r = std::make_pair(epoch_step_cycles_, epoch_steps_);
  epoch_step_cycles_ = epoch_steps_ = 0;
  return r;
}

std::int64_t AcceleratorSession::simulated_cycles() const {
  return system_.cycles();
}

}  // namespace trainsim
