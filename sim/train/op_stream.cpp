#include "sim/train/op_stream.h"

#include "sim/nn/layer_registry.h"

namespace trainsim {

OpStream::OpStream(const ExperimentSpec& spec, OpSink& sink)
    : sink_(sink),
      shape_(spec.network),
      word_bits_(spec.sim.accelerator.word_bits),
      optimizer_(spec.training.optimizer) {
  // The technique's hardware, as its description declares it: a second unit (an array of
  // its own, or the main one), the roles that always run there, its memory and predictor.
  hw_ = technique_hardware(spec.sim.technique, shape_,
                           static_cast<int>(spec.sim.accelerator.word_bytes()));
  for (OpRole r : hw_.second_unit_roles) second_unit_role_[static_cast<std::size_t>(r)] = true;
  own_unit_ = hw_.own_array();
}

int OpStream::predictor_outputs(std::size_t layer) const {
  const std::vector<int>& outputs = hw_.predictor.outputs;
  return layer < outputs.size() ? outputs[layer] : 0;
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
  predictor_layer_ = static_cast<std::size_t>(-1);
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

void OpStream::on_compare(std::size_t layer, int values) {
  auto key = std::make_tuple(static_cast<int>(OpRole::kCompare), layer, std::int64_t{values});
  auto it = ad_hoc_ops_.find(key);
  if (it == ad_hoc_ops_.end()) {
    // Subtract, absolute value and accumulate per output, then one compare with the threshold.
    Op op = Op::make_eltwise({values, 2, 0, 3}, OpRole::kCompare, static_cast<int>(layer));
    op.eltwise.dram = false;  // both softmax vectors are on chip
    op.word_bits = word_bits_;
    it = ad_hoc_ops_.emplace(key, op).first;
  }
  push_op(it->second);
}

void OpStream::on_store(std::size_t layer, std::int64_t words) {
  auto key = std::make_tuple(static_cast<int>(OpRole::kStore), layer, words);
  auto it = ad_hoc_ops_.find(key);
  if (it == ad_hoc_ops_.end()) {
    // The forward pass's activations are copied into the label's slot: on chip they are
    // written to the store partition of the buffer; in DRAM they are streamed out.
    Op op = Op::make_eltwise({words, 0, 1, 0}, OpRole::kStore, static_cast<int>(layer));
    op.eltwise.dram = hw_.store_in_dram;
    op.word_bits = word_bits_;
    it = ad_hoc_ops_.emplace(key, op).first;
  }
  push_op(it->second);
}

void OpStream::on_phase(int phase) {
  phase_ = phase;
}

void OpStream::on_predictor(std::size_t layer, int pass, int samples) {
  const int batch = current_batch_ > 0 ? current_batch_ : 1;
  const auto key = std::make_tuple(layer, samples, batch);
  auto it = predictor_ops_.find(key);
  if (it == predictor_ops_.end()) {
    // The predictor sees a conv layer's output maps (batch-averaged) and a dense layer's
    // units as 1 x batch maps (sim/techniques/gradient_predictor.h).
    const Shape out = shape_.layer(layer).out;
    const bool conv = layer_family(shape_.layer_spec(layer).type) == LayerFamily::kConv;
    const TechniqueHardware::Predictor& p = hw_.predictor;
    it = predictor_ops_
             .emplace(key, lower_predictor(static_cast<int>(layer), samples, conv ? out.h : 1,
                                           conv ? out.w : batch, conv ? batch : 1, p.size,
                                           p.channels, predictor_outputs(layer), p.max_outputs,
                                           word_bits_, p.resident))
             .first;
  }
  const std::vector<Op>& ops =
      pass == 0 ? it->second.forward : (pass == 1 ? it->second.backward : it->second.update);
  if (!ops.empty() && second_unit_role_[static_cast<std::size_t>(ops.front().role)]) {
    // A predictor on a unit of its own: in the hardware's lockstep phase (ADA-GP-MAX's Phase
    // GP) pending work of another layer is completed first; otherwise (Warm Up, Phase BP) the
    // predictor's work for the batch runs beside the model's passes.
    if (phase_ == hw_.lockstep_phase && predictor_layer_ != layer && second_pending_)
      finish(Phase::kTrain, false);
    predictor_layer_ = layer;
  }
  for (const Op& op : ops) push_op(op);
}

}  // namespace trainsim
