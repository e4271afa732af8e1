#include "sim/train/session_record.h"

#include "sim/accel/energy.h"

namespace trainsim {

SessionRecord::SessionRecord(const AcceleratorSpec& acc, std::size_t layers,
                             std::size_t technique_phases)
    : acc_(acc), layer_role_unit_(layers), phase_totals_(technique_phases) {
  for (auto& per_phase : layer_roles_) per_phase.resize(layers);
}

void SessionRecord::add_flush(Phase phase, const std::array<std::vector<OpRequest>, 2>& ran,
                              const std::vector<bool>& discarded, std::int64_t pes,
                              std::int64_t elapsed, int technique_phase) {
  const int p = static_cast<int>(phase);
  const bool train = phase == Phase::kTrain;
  // Sums are utilized against every array that ran them: the main one and a technique's own.
  // Each op is added once, to its unit's sum for this flush, which then goes to the phase,
  // epoch and unit totals (a batch has hundreds of ops; adding each to every total cost a
  // fifth of a small network's run time).
  // Per unit, the array's ops (those with MACs) apart from the vector unit's.
  std::array<std::array<OpTotals, 2>, 2> split{};
  for (int u = 0; u < 2; ++u) {
    const auto& reqs = ran[static_cast<std::size_t>(u)];
    for (std::size_t k = 0; k < reqs.size(); ++k) {
      const OpRequest& r = reqs[k];
      split[static_cast<std::size_t>(u)][r.stats.macs > 0 ? 0 : 1].add(
          r.stats, r.stats.pes, r.op.role == OpRole::kUpdate);
      layer_roles_[p][static_cast<std::size_t>(r.op.layer)][static_cast<int>(r.op.role)].add(
          r.stats, r.stats.pes);
      layer_role_unit_[static_cast<std::size_t>(r.op.layer)][static_cast<int>(r.op.role)] =
          static_cast<std::uint8_t>(u);
      if (train && u == 1 && discarded[k]) discarded_.add(r.stats, r.stats.pes);
    }
  }
  OpTotals* technique =
      phased() && train ? &phase_totals_[static_cast<std::size_t>(technique_phase)] : nullptr;
  for (int u = 0; u < 2; ++u) {
    const auto& reqs = ran[static_cast<std::size_t>(u)];
    if (reqs.empty()) continue;
    const auto& parts = split[static_cast<std::size_t>(u)];
    OpTotals sum = parts[0];
    sum.merge(parts[1], pes, true);
    for (std::size_t k = 0; k < 2; ++k)
      unit_work_[static_cast<std::size_t>(u)][k].merge(parts[k], reqs.back().stats.pes, false);
    totals_[p].merge(sum, pes, true);
    epoch_[p].merge(sum, pes, true);
    // A unit's own sum keeps the PE count of its last op, as adding op by op did.
    if (train) unit_totals_[static_cast<std::size_t>(u)].merge(sum, reqs.back().stats.pes, false);
    if (technique) technique->merge(sum, pes, true);
  }
  totals_[p].elapsed_cycles += elapsed;
  epoch_[p].elapsed_cycles += elapsed;
  if (technique) technique->elapsed_cycles += elapsed;
}

void SessionRecord::add_trace(Phase phase, const std::array<std::vector<OpRequest>, 2>& ran) {
  if (!tracing()) return;
  ++trace_flushes_;
  for (std::size_t u = 0; u < 2; ++u)
    for (const OpRequest& r : ran[u]) {
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

void SessionRecord::step(bool begin, std::int64_t now) {
  if (begin) {
    step_begin_ = now;
    return;
  }
  const std::int64_t c = now - step_begin_;
  step_cycles_ += c;
  epoch_step_cycles_ += c;
  ++steps_;
  ++epoch_steps_;
}

void SessionRecord::clear_layer_roles() {
  for (auto& per_phase : layer_roles_)
    for (auto& roles : per_phase) roles = {};
}

std::array<OpTotals, kNumPhases> SessionRecord::take_epoch() {
  std::array<OpTotals, kNumPhases> e = take_epoch_sums();
  price_run_sums();
  return e;
}

std::array<OpTotals, kNumPhases> SessionRecord::take_epoch_sums() {
  std::array<OpTotals, kNumPhases> e = epoch_;
  epoch_ = {};
  for (OpTotals& t : e) price_totals(t, acc_);
  return e;
}

void SessionRecord::price_run_sums() {
  for (OpTotals& t : totals_) price_totals(t, acc_);
  for (OpTotals& t : unit_totals_) price_totals(t, acc_);
  for (OpTotals& t : phase_totals_) price_totals(t, acc_);
  price_totals(discarded_, acc_);
  for (auto& per_phase : layer_roles_)
    for (auto& roles : per_phase)
      for (OpTotals& t : roles) price_totals(t, acc_);
}

std::pair<std::int64_t, std::int64_t> SessionRecord::take_epoch_steps() {
  auto r = std::make_pair(epoch_step_cycles_, epoch_steps_);
  epoch_step_cycles_ = epoch_steps_ = 0;
  return r;
}

}  // namespace trainsim
