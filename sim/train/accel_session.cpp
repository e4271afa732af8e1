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

void AcceleratorSession::push(const std::optional<Op>& op) {
  if (!op) return;
  OpRequest& req = pending_.emplace_back();
  req.op = *op;
  if (fidelity_ == Fidelity::kCycle && op->kind != OpKind::kElementwise) {
    // The clocked array needs operand values of the op's shape; one set per shape.
    const std::string key = op->describe();
    auto it = operands_.find(key);
    if (it == operands_.end())
      it = operands_.emplace(key, make_operands(*op, dataflow_->gemm_based(), 1)).first;
    req.values = &it->second;
  }
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

void AcceleratorSession::on_batch_end(Phase phase, int batch) {
  if (pending_.empty()) return;
  system_.run(pending_);
  const int p = static_cast<int>(phase);
  const std::int64_t pes = spec_.sim.accelerator.pes();
  for (const OpRequest& r : pending_) {
    totals_[p].add(r.stats, pes);
    epoch_[p].add(r.stats, pes);
    layer_roles_[p][static_cast<std::size_t>(r.op.layer)][static_cast<int>(r.op.role)].add(
        r.stats, r.stats.pes);
  }
  pending_.clear();
}

std::array<OpTotals, kNumPhases> AcceleratorSession::take_epoch() {
  std::array<OpTotals, kNumPhases> e = epoch_;
  epoch_ = {};
  return e;
}

std::int64_t AcceleratorSession::simulated_cycles() const {
  return system_.cycles();
}

}  // namespace trainsim
