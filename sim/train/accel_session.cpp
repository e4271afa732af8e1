#include "sim/train/accel_session.h"

#include "dataflows/registry.h"
#include "sim/accel/memory_model.h"
#include "sim/accel/reference.h"
#include "sim/nn/layer_registry.h"
#include "sim/techniques/adagp_schedule.h"

namespace trainsim {

AcceleratorSession::AcceleratorSession(const ExperimentSpec& spec, Network<float>& net,
                                       const Dataflow* dataflow)
    : AcceleratorSession(spec, dataflow) {
  net_ = &net;
  net_->set_observer(this);
}

AcceleratorSession::AcceleratorSession(const ExperimentSpec& spec, const Dataflow* dataflow)
    : spec_(spec),
      shape_(spec.network),
      dataflow_(dataflow ? dataflow : &dataflow_or_throw(spec.sim.dataflow)),
      system_(SimSystem::instance()),
      fidelity_(parse_fidelity(spec.sim.fidelity)) {
  system_.configure(spec_.sim.accelerator, *dataflow_, fidelity_);
  // Cycle fidelity computes each op's real outputs: every flush runs.
  memo_ = fidelity_ == Fidelity::kFast;
  residency_ =
      spec_.sim.residency && memory_model_or_throw(spec_.sim.accelerator.memory).plans_residency();
  // The technique's hardware, as its description declares it: a second unit (an array of
  // its own, or the main one), the roles that always run there, its memory and predictor.
  const TechniqueSpec& t = spec_.sim.technique;
  phased_ = technique_info(t).phased;
  hw_ = technique_hardware(t, shape_, static_cast<int>(spec_.sim.accelerator.word_bytes()));
  for (OpRole r : hw_.second_unit_roles) second_unit_role_[static_cast<std::size_t>(r)] = true;
  extra_storage_bytes_ = hw_.storage_bytes;
  own_unit_ = hw_.own_array();
  if (own_unit_) {
    const AcceleratorSpec unit = own_array_spec(hw_, spec_.sim.accelerator);
    extra_pes_ = unit.pes();
    system_.configure_second_unit(unit);
  }
  for (auto& per_phase : layer_roles_) per_phase.resize(shape_.size());
  layer_role_unit_.resize(shape_.size());
}

AcceleratorSession::~AcceleratorSession() {
  if (net_) net_->set_observer(nullptr);
}

int AcceleratorSession::predictor_outputs(std::size_t layer) const {
  const std::vector<int>& outputs = hw_.predictor.outputs;
  return layer < outputs.size() ? outputs[layer] : 0;
}

const std::vector<LayerOps>& AcceleratorSession::ops_for(int batch) {
  if (batch == current_batch_) return *current_;
  auto it = lowered_.find(batch);
  if (it == lowered_.end()) {
    it = lowered_
             .emplace(batch, lower_network(shape_, batch, spec_.sim.accelerator.word_bits,
                                           spec_.training.optimizer))
             .first;
  }
  current_batch_ = batch;
  current_ = &it->second;
  return *current_;
}

void AcceleratorSession::push_op(const Op& op) {
  // Roles the technique's hardware runs on its second unit go there from any unit.
  const bool second = unit_ == 1 || second_unit_role_[static_cast<std::size_t>(op.role)];
  OpRequest& req = pending_[second ? 1 : 0].emplace_back();
  req.op = op;
  if (second) discarded_flags_.push_back(unit_ == 1 && discarding_);
  flush_key_.push_back(reinterpret_cast<std::uintptr_t>(&op) | (second ? 1U : 0U));
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
void AcceleratorSession::on_grad_sum(std::size_t layer, int batch) {
  push(ops_for(batch)[layer].grad_sum);
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
  auto key = std::make_tuple(static_cast<int>(OpRole::kCompare), layer, std::int64_t{values});
  auto it = ad_hoc_ops_.find(key);
  if (it == ad_hoc_ops_.end()) {
    // Subtract, absolute value and accumulate per output, then one compare with the threshold.
    Op op = Op::make_eltwise({values, 2, 0, 3}, OpRole::kCompare, static_cast<int>(layer));
    op.eltwise.dram = false;  // both softmax vectors are on chip
    op.word_bits = spec_.sim.accelerator.word_bits;
    it = ad_hoc_ops_.emplace(key, op).first;
  }
  push_op(it->second);
}

void AcceleratorSession::on_store(std::size_t layer, std::int64_t words) {
  auto key = std::make_tuple(static_cast<int>(OpRole::kStore), layer, words);
  auto it = ad_hoc_ops_.find(key);
  if (it == ad_hoc_ops_.end()) {
    // The forward pass's activations are copied into the label's slot: on chip they are
    // written to the store partition of the buffer; in DRAM they are streamed out.
    Op op = Op::make_eltwise({words, 0, 1, 0}, OpRole::kStore, static_cast<int>(layer));
    op.eltwise.dram = hw_.store_in_dram;
    op.word_bits = spec_.sim.accelerator.word_bits;
    it = ad_hoc_ops_.emplace(key, op).first;
  }
  push_op(it->second);
}

void AcceleratorSession::on_phase(int phase) {
  adagp_phase_ = phase;
}

void AcceleratorSession::on_predictor(std::size_t layer, int pass, int samples) {
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
                                           spec_.sim.accelerator.word_bits, p.resident))
             .first;
  }
  const std::vector<Op>& ops =
      pass == 0 ? it->second.forward : (pass == 1 ? it->second.backward : it->second.update);
  if (!ops.empty() && second_unit_role_[static_cast<std::size_t>(ops.front().role)]) {
    // A predictor on a unit of its own (ADA-GP-MAX): in Phase GP its work for one layer
    // overlaps the model's next layer; the layers stay in step (the paper waits for both
    // before moving on), so pending work of another layer is joined first. In Warm Up and
    // Phase BP the predictor's work for the batch runs beside the model's forward and
    // backward passes.
    if (adagp_phase_ == AdagpSchedule::kPhaseGp && predictor_layer_ != layer &&
        !pending_[1].empty())
      flush(Phase::kTrain);
    predictor_layer_ = layer;
  }
  for (const Op& op : ops) push_op(op);
}

std::size_t AcceleratorSession::KeyHash::operator()(const std::vector<std::uintptr_t>& key) const {
  std::uint64_t h = 0xcbf29ce484222325ULL;  // FNV-1a over the words
  for (std::uintptr_t v : key) h = (h ^ static_cast<std::uint64_t>(v)) * 0x100000001b3ULL;
  return static_cast<std::size_t>(h);
}

void AcceleratorSession::run_pending(bool whole_step) {
  if (residency_) {
    // Each unit has its own buffer; a second unit that shares the array runs its ops on the
    // main accelerator, after the main unit's.
    planners_[0].plan(pending_[0], whole_step, system_.accelerator().cost_model());
    Accelerator& second = own_unit_ ? system_.second_unit() : system_.accelerator();
    planners_[1].plan(pending_[1], whole_step, second.cost_model());
  }
  if (own_unit_) {
    system_.run_parallel(pending_[0], pending_[1]);
  } else {
    // A shared array runs the second unit's work after the main unit's.
    system_.run(pending_[0]);
    system_.run(pending_[1]);
  }
}

void AcceleratorSession::flush(Phase phase, bool whole_step) {
  if (pending_[0].empty() && pending_[1].empty()) return;
  // The key: the ops in push order (each tagged with its unit), then whole_step, which
  // changes the residency plan.
  flush_key_.push_back(whole_step ? 1 : 0);
  const SimSystem::Carried before = system_.carried();
  auto hit = memo_ ? flush_memo_.find(flush_key_) : flush_memo_.end();
  if (hit != flush_memo_.end()) {
    const FlushResult& f = hit->second;
    for (int u = 0; u < 2; ++u) {
      auto& reqs = pending_[static_cast<std::size_t>(u)];
      for (std::size_t k = 0; k < reqs.size(); ++k)
        reqs[k].stats = f.stats[static_cast<std::size_t>(u)][k];
    }
    SimSystem::Carried after = before;
    after.cycles += f.delta.cycles;
    for (std::size_t c = 0; c < after.channels.size(); ++c)
      for (std::size_t i = 0; i < after.channels[c].size(); ++i)
        after.channels[c][i] += f.delta.channels[c][i];
    system_.restore(after);
    ++flushes_replayed_;
  } else {
    run_pending(whole_step);
    ++flushes_run_;
    if (memo_) {
      FlushResult f;
      for (int u = 0; u < 2; ++u)
        for (const OpRequest& r : pending_[static_cast<std::size_t>(u)]) {
          // The sums below ignore an op's mapping summary (OpStats::operator+=); not keeping
          // it spares a replay a vector of strings per op.
          OpStats& kept = f.stats[static_cast<std::size_t>(u)].emplace_back(r.stats);
          kept.mapping.clear();
        }
      const SimSystem::Carried after = system_.carried();
      f.delta.cycles = after.cycles - before.cycles;
      for (std::size_t c = 0; c < after.channels.size(); ++c)
        for (std::size_t i = 0; i < after.channels[c].size(); ++i)
          f.delta.channels[c][i] = after.channels[c][i] - before.channels[c][i];
      flush_memo_.emplace(flush_key_, std::move(f));
    }
  }
  flush_key_.clear();
  const std::int64_t elapsed = system_.cycles() - before.cycles;
  const int p = static_cast<int>(phase);
  // Sums are utilized against every array that ran them: the main one and a technique's own.
  // Each op is added once, to its unit's sum for this flush, which then goes to the phase,
  // epoch and unit totals (a batch has hundreds of ops; adding each to every total cost a
  // fifth of a small network's run time).
  const std::int64_t pes = array_pes();
  std::array<OpTotals, 2> unit_sum{};
  for (int u = 0; u < 2; ++u) {
    const auto& reqs = pending_[static_cast<std::size_t>(u)];
    for (std::size_t k = 0; k < reqs.size(); ++k) {
      const OpRequest& r = reqs[k];
      unit_sum[static_cast<std::size_t>(u)].add(r.stats, r.stats.pes, r.op.role == OpRole::kUpdate);
      layer_roles_[p][static_cast<std::size_t>(r.op.layer)][static_cast<int>(r.op.role)].add(
          r.stats, r.stats.pes);
      layer_role_unit_[static_cast<std::size_t>(r.op.layer)][static_cast<int>(r.op.role)] =
          static_cast<std::uint8_t>(u);
      if (phase == Phase::kTrain && u == 1 && discarded_flags_[k])
        discarded_.add(r.stats, r.stats.pes);
    }
  }
  for (int u = 0; u < 2; ++u) {
    const auto& reqs = pending_[static_cast<std::size_t>(u)];
    if (reqs.empty()) continue;
    const OpTotals& sum = unit_sum[static_cast<std::size_t>(u)];
    totals_[p].merge(sum, pes, true);
    epoch_[p].merge(sum, pes, true);
    // A unit's own sum keeps the PE count of its last op, as adding op by op did.
    if (phase == Phase::kTrain)
      unit_totals_[static_cast<std::size_t>(u)].merge(sum, reqs.back().stats.pes, false);
    if (phased_ && phase == Phase::kTrain)
      adagp_phases_[static_cast<std::size_t>(adagp_phase_)].merge(sum, pes, true);
  }
  totals_[p].elapsed_cycles += elapsed;
  epoch_[p].elapsed_cycles += elapsed;
  if (phased_ && phase == Phase::kTrain)
    adagp_phases_[static_cast<std::size_t>(adagp_phase_)].elapsed_cycles += elapsed;
  predictor_layer_ = static_cast<std::size_t>(-1);
  pending_[0].clear();
  pending_[1].clear();
  discarded_flags_.clear();
}

void AcceleratorSession::on_batch_end(Phase phase, int batch) {
  flush(phase, /*whole_step=*/true);
}

void AcceleratorSession::clear_layer_roles() {
  for (auto& per_phase : layer_roles_)
    for (auto& roles : per_phase) roles = {};
}

std::array<OpTotals, kNumPhases> AcceleratorSession::take_epoch() {
  std::array<OpTotals, kNumPhases> e = epoch_;
  epoch_ = {};
  // The epoch is complete: the accelerator prices its sums, this epoch's and the run's so
  // far, once; every writer reads these.
  const AcceleratorSpec& acc = spec_.sim.accelerator;
  for (OpTotals& t : e) price_totals(t, acc);
  for (OpTotals& t : totals_) price_totals(t, acc);
  for (OpTotals& t : unit_totals_) price_totals(t, acc);
  for (OpTotals& t : adagp_phases_) price_totals(t, acc);
  price_totals(discarded_, acc);
  for (auto& per_phase : layer_roles_)
    for (auto& roles : per_phase)
      for (OpTotals& t : roles) price_totals(t, acc);
  return e;
}

std::pair<std::int64_t, std::int64_t> AcceleratorSession::take_epoch_steps() {
  auto r = std::make_pair(epoch_step_cycles_, epoch_steps_);
  epoch_step_cycles_ = epoch_steps_ = 0;
  return r;
}

std::int64_t AcceleratorSession::array_pes() const {
  return spec_.sim.accelerator.pes() + (own_unit_ ? system_.second_unit().spec().pes() : 0);
}

std::int64_t AcceleratorSession::simulated_cycles() const {
  return system_.cycles();
}

}  // namespace trainsim
