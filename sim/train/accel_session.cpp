#include "sim/train/accel_session.h"

#include "dataflows/registry.h"
#include "sim/accel/memory_model.h"
#include "sim/accel/reference.h"

namespace trainsim {

AcceleratorSession::AcceleratorSession(const ExperimentSpec& spec, Network<float>& net,
                                       const Dataflow* dataflow)
    : AcceleratorSession(spec, dataflow) {
  net_ = &net;
  net_->set_observer(this);
}

AcceleratorSession::AcceleratorSession(const ExperimentSpec& spec, const Dataflow* dataflow)
    : OpStream(spec, static_cast<OpSink&>(*this)),
      spec_(spec),
      dataflow_(dataflow ? dataflow : &dataflow_or_throw(spec.sim.dataflow)),
      fidelity_(parse_fidelity(spec.sim.fidelity)),
      node_(spec_.sim.accelerator, *dataflow_, fidelity_),
      record_(spec_.sim.accelerator, shape().size(),
              technique_info(spec_.sim.technique).phases.size()) {
  // Cycle fidelity computes each op's real outputs: every flush runs.
  memo_ = fidelity_ == Fidelity::kFast;
  residency_ =
      spec_.sim.residency && memory_model_or_throw(spec_.sim.accelerator.memory).plans_residency();
  extra_storage_bytes_ = hardware().storage_bytes;
  if (own_unit()) {
    const AcceleratorSpec unit = own_array_spec(hardware(), spec_.sim.accelerator);
    extra_pes_ = unit.pes();
    node_.configure_second_unit(unit);
  }
}

AcceleratorSession::~AcceleratorSession() {
  if (net_) net_->set_observer(nullptr);
}

void AcceleratorSession::take(const Op& op, int unit, bool discarded) {
  OpRequest& req = pending_[static_cast<std::size_t>(unit)].emplace_back();
  req.op = op;
  if (unit == 1) discarded_flags_.push_back(discarded);
  flush_memo_.push(op, unit);
  if (fidelity_ == Fidelity::kCycle && op.kind != OpKind::kElementwise) {
    // The clocked array needs operand values of the op's shape; one set per shape.
    const std::string key = op.describe();
    auto it = operands_.find(key);
    if (it == operands_.end())
      it = operands_.emplace(key, make_operands(op, dataflow_->gemm_based(), 1)).first;
    req.values = &it->second;
  }
}

void AcceleratorSession::step(bool begin) {
  record_.step(begin, node_.cycles());
}

void AcceleratorSession::run_pending(bool whole_step) {
  if (residency_) {
    // Each unit has its own buffer; a second unit that shares the array runs its ops on the
    // main accelerator, after the main unit's.
    planners_[0].plan(pending_[0], whole_step, node_.accelerator().cost_model());
    Accelerator& second = own_unit() ? node_.second_unit() : node_.accelerator();
    planners_[1].plan(pending_[1], whole_step, second.cost_model());
  }
  if (own_unit()) {
    node_.run_parallel(pending_[0], pending_[1]);
  } else {
    // A shared array runs the second unit's work after the main unit's.
    node_.run(pending_[0]);
    node_.run(pending_[1]);
  }
}

void AcceleratorSession::flush(Phase phase, bool whole_step) {
  if (pending_[0].empty() && pending_[1].empty()) return;
  // A flush of the same ops as an earlier one replays its result (sim/train/flush_memo.h).
  const AcceleratorNode::Carried before = node_.carried();
  const sc_core::sc_time start = node_.elapsed();
  const FlushResult* hit = memo_ ? flush_memo_.find(whole_step) : nullptr;
  if (hit != nullptr) {
    for (std::size_t u = 0; u < 2; ++u) {
      auto& reqs = pending_[u];
      for (std::size_t k = 0; k < reqs.size(); ++k) reqs[k].stats = hit->stats[u][k];
      // Op times matter only to the timeline's window: past it, a replay skips them.
      if (record_.tracing())
        for (std::size_t k = 0; k < reqs.size(); ++k) {
          reqs[k].start = start + hit->times[u][k].first;
          reqs[k].end = start + hit->times[u][k].second;
        }
    }
    node_.restore(FlushMemo::advanced(before, hit->delta));
    ++flushes_replayed_;
  } else {
    run_pending(whole_step);
    ++flushes_run_;
    if (memo_) flush_memo_.record(pending_, before, node_.carried(), start);
  }
  flush_memo_.next();
  const std::int64_t elapsed = node_.cycles() - before.cycles;
  record_.add_trace(phase, pending_);
  record_.add_flush(phase, pending_, discarded_flags_, array_pes(), elapsed, OpStream::phase());
  pending_[0].clear();
  pending_[1].clear();
  discarded_flags_.clear();
}

std::int64_t AcceleratorSession::array_pes() const {
  return spec_.sim.accelerator.pes() + (own_unit() ? node_.second_unit().spec().pes() : 0);
}

std::int64_t AcceleratorSession::simulated_cycles() const {
  return node_.cycles();
}

}  // namespace trainsim
