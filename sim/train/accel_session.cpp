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
      node_(spec_.sim.accelerator, *dataflow_, fidelity_) {
  // Cycle fidelity computes each op's real outputs: every flush runs.
  memo_ = fidelity_ == Fidelity::kFast;
  residency_ =
      spec_.sim.residency && memory_model_or_throw(spec_.sim.accelerator.memory).plans_residency();
  phase_totals_.resize(technique_info(spec_.sim.technique).phases.size());
  extra_storage_bytes_ = hardware().storage_bytes;
  if (own_unit()) {
    const AcceleratorSpec unit = own_array_spec(hardware(), spec_.sim.accelerator);
    extra_pes_ = unit.pes();
    node_.configure_second_unit(unit);
  }
  for (auto& per_phase : layer_roles_) per_phase.resize(shape().size());
  layer_role_unit_.resize(shape().size());
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
  if (begin) {
    step_begin_ = node_.cycles();
    return;
  }
  const std::int64_t c = node_.cycles() - step_begin_;
  step_cycles_ += c;
  epoch_step_cycles_ += c;
  ++steps_;
  ++epoch_steps_;
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
      if (trace_flushes_ < kTraceFlushes)
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
  if (trace_flushes_ < kTraceFlushes) {
    ++trace_flushes_;
    for (std::size_t u = 0; u < 2; ++u)
      for (const OpRequest& r : pending_[u]) {
        TraceOp& t = trace_.emplace_back();
        t.start_ps = static_cast<std::int64_t>(r.start.to_seconds() * 1e12 + 0.5);
        t.end_ps = static_cast<std::int64_t>(r.end.to_seconds() * 1e12 + 0.5);
        t.macs = static_cast<std::int64_t>(r.stats.macs);
        t.dram_bytes = static_cast<std::int64_t>(r.stats.dram_bytes());
        t.layer = r.op.layer;
        t.unit = static_cast<std::uint8_t>(u);
        t.array = r.stats.macs > 0 ? 1 : 0;
        t.role = static_cast<std::uint8_t>(r.op.role);
        t.phase = static_cast<std::uint8_t>(phase);
      }
  }
  const int p = static_cast<int>(phase);
  // Sums are utilized against every array that ran them: the main one and a technique's own.
  // Each op is added once, to its unit's sum for this flush, which then goes to the phase,
  // epoch and unit totals (a batch has hundreds of ops; adding each to every total cost a
  // fifth of a small network's run time).
  const std::int64_t pes = array_pes();
  // Per unit, the array's ops (those with MACs) apart from the vector unit's.
  std::array<std::array<OpTotals, 2>, 2> split{};
  for (int u = 0; u < 2; ++u) {
    const auto& reqs = pending_[static_cast<std::size_t>(u)];
    for (std::size_t k = 0; k < reqs.size(); ++k) {
      const OpRequest& r = reqs[k];
      split[static_cast<std::size_t>(u)][r.stats.macs > 0 ? 0 : 1].add(
          r.stats, r.stats.pes, r.op.role == OpRole::kUpdate);
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
    const auto& parts = split[static_cast<std::size_t>(u)];
    OpTotals sum = parts[0];
    sum.merge(parts[1], pes, true);
    for (std::size_t k = 0; k < 2; ++k)
      unit_work_[static_cast<std::size_t>(u)][k].merge(parts[k], reqs.back().stats.pes, false);
    totals_[p].merge(sum, pes, true);
    epoch_[p].merge(sum, pes, true);
    // A unit's own sum keeps the PE count of its last op, as adding op by op did.
    if (phase == Phase::kTrain)
      unit_totals_[static_cast<std::size_t>(u)].merge(sum, reqs.back().stats.pes, false);
    if (phased() && phase == Phase::kTrain)
      phase_totals_[static_cast<std::size_t>(OpStream::phase())].merge(sum, pes, true);
  }
  totals_[p].elapsed_cycles += elapsed;
  epoch_[p].elapsed_cycles += elapsed;
  if (phased() && phase == Phase::kTrain)
    phase_totals_[static_cast<std::size_t>(OpStream::phase())].elapsed_cycles += elapsed;
  pending_[0].clear();
  pending_[1].clear();
  discarded_flags_.clear();
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
  for (OpTotals& t : phase_totals_) price_totals(t, acc);
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
  return spec_.sim.accelerator.pes() + (own_unit() ? node_.second_unit().spec().pes() : 0);
}

std::int64_t AcceleratorSession::simulated_cycles() const {
  return node_.cycles();
}

}  // namespace trainsim
