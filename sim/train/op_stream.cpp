#include "sim/train/op_stream.h"

namespace trainsim {

OpStream::OpStream(const ExperimentSpec& spec, OpSink& sink)
    : sink_(sink),
      shape_(spec.network),
      word_bits_(spec.sim.accelerator.word_bits),
      optimizer_(spec.training.optimizer) {
  // The technique's hardware, as its description declares it: a second unit (an array of
  // its own, or the main one), the roles that always run there, its memory and its own model.
  hw_ = technique_hardware(spec.sim.technique, shape_,
                           static_cast<int>(spec.sim.accelerator.word_bytes()));
  for (OpRole r : hw_.second_unit_roles) second_unit_role_[static_cast<std::size_t>(r)] = true;
  own_unit_ = hw_.own_array();
  lower_ops_ = technique_info(spec.sim.technique).lower_ops;
}

const std::vector<LayerOps>& OpStream::ops_for(int batch) {
  if (batch == current_batch_) return *current_;
  auto it = lowered_.find(batch);
  if (it == lowered_.end())
    it = lowered_.emplace(batch, lower_network(shape_, batch, word_bits_, optimizer_)).first;
  current_batch_ = batch;
  current_ = &it->second;
  return *current_;
}

void OpStream::push_op(const Op& op) {
  // Roles the technique's hardware runs on its second unit go there from any unit.
  const bool second = unit_ == 1 || second_unit_role_[static_cast<std::size_t>(op.role)];
  second_pending_ = second_pending_ || second;
  sink_.take(op, second ? 1 : 0, second && unit_ == 1 && discarding_);
}

void OpStream::push(const std::optional<Op>& op) {
  if (op) push_op(*op);
}

void OpStream::finish(Phase phase, bool whole_step) {
  sink_.complete(phase, whole_step);
  second_pending_ = false;
  lockstep_layer_ = static_cast<std::size_t>(-1);
}

void OpStream::on_forward(std::size_t layer, int batch) {
  push(ops_for(batch)[layer].forward);
}
void OpStream::on_loss_grad(std::size_t layer, int batch) {
  push(ops_for(batch)[layer].loss_grad);
}
void OpStream::on_backward_data(std::size_t layer, int batch) {
  push(ops_for(batch)[layer].backward_data);
}
void OpStream::on_backward_weight(std::size_t layer, int batch) {
  push(ops_for(batch)[layer].backward_weight);
}
void OpStream::on_update(std::size_t layer, int batch) {
  push(ops_for(batch)[layer].update);
}
void OpStream::on_grad_sum(std::size_t layer, int batch) {
  push(ops_for(batch)[layer].grad_sum);
}

void OpStream::on_batch_end(Phase phase, int batch) {
  (void)batch;
  finish(phase, /*whole_step=*/true);
}

void OpStream::on_unit(int unit, bool discarded) {
  unit_ = unit;
  discarding_ = discarded;
}

void OpStream::on_join() {
  finish(Phase::kTrain, false);
}

void OpStream::on_step(bool begin) {
  finish(Phase::kTrain, false);  // step boundaries are exact: nothing pending spans them
  sink_.step(begin);
}

void OpStream::on_phase(int phase) {
  phase_ = phase;
}

void OpStream::on_technique_op(std::size_t layer, int what, std::int64_t n) {
  if (lower_ops_ == nullptr) return;  // the technique does no work of its own
  const int batch = current_batch_ > 0 ? current_batch_ : 1;
  const auto key = std::make_tuple(layer, what, n, batch);
  auto it = technique_ops_.find(key);
  if (it == technique_ops_.end())
    it = technique_ops_.emplace(key, lower_ops_(hw_, shape_, layer, what, n, batch, word_bits_))
             .first;
  const std::vector<Op>& ops = it->second;
  if (!ops.empty() && second_unit_role_[static_cast<std::size_t>(ops.front().role)]) {
    // Work on a unit of its own: in the hardware's lockstep phase (ADA-GP-MAX's Phase GP)
    // pending work of another layer is completed first; otherwise (Warm Up, Phase BP) the
    // technique's work for the batch runs beside the model's passes.
    if (phase_ == hw_.lockstep_phase && lockstep_layer_ != layer && second_pending_)
      finish(Phase::kTrain, false);
    lockstep_layer_ = layer;
  }
  for (const Op& op : ops) push_op(op);
}

}  // namespace trainsim
