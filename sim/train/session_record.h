#pragma once
// What an accelerator session keeps of the ops it ran (sim/train/accel_session.h): the sums per
// phase (training, evaluation) for the run and the epoch, per unit and kind of work, per
// technique phase and per layer x role; the speculative work thrown away; per-sample step
// times; and the first flushes' ops for the run's timeline. The session runs the ops; this
// adds them up and has the device price the sums once each is complete.
#include <array>
#include <cstdint>
#include <utility>
#include <vector>

#include "models/accelerator.h"
#include "sim/accel/op_totals.h"
#include "sim/core/state_archive.h"
#include "sim/nn/pass_observer.h"
#include "sim/workload/op.h"

namespace trainsim {

inline constexpr int kNumPhases = 2;

/// One op of a session's first flushes, for the run's timeline (sim/report/run_timeline.h).
struct TraceOp {
  std::int64_t start_ps = 0, end_ps = 0;  ///< on the session's node clock
  std::int64_t macs = 0, dram_bytes = 0;
  std::int32_t layer = 0;
  std::uint8_t unit = 0;   ///< 0 the main units, 1 the technique's second unit
  std::uint8_t array = 0;  ///< 1: ran on a PE array (it has MACs), 0: on a vector unit
  std::uint8_t role = 0, phase = 0;
};

class SessionRecord {
 public:
  /// A record of a network of `layers` layers, a technique of `technique_phases` phases
  /// (TechniqueInfo::phases; 0: none), on accelerator `acc` (which prices the sums; it must
  /// outlive the record).
  SessionRecord(const AcceleratorSpec& acc, std::size_t layers, std::size_t technique_phases);

  /// Adds one flush: each unit's ops as they ran (`ran[u]`, their stats set), which of unit
  /// 1's were speculative work thrown away (`discarded`, parallel to `ran[1]`), the PEs of
  /// every array the session runs on, the cycles the flush took and the technique's phase.
  void add_flush(Phase phase, const std::array<std::vector<OpRequest>, 2>& ran,
                 const std::vector<bool>& discarded, std::int64_t pes, std::int64_t elapsed,
                 int technique_phase);
  /// Flushes of a run the timeline shows: its first ones (a training batch is one or a few;
  /// a bounded window keeps the trace file small whatever the run's length).
  static constexpr int kTraceFlushes = 24;
  /// Whether the next flush is in the timeline's window.
  bool tracing() const { return trace_flushes_ < kTraceFlushes; }
  /// Records the flush `ran` (start and end on the node's clock) in the timeline, if in its
  /// window.
  void add_trace(Phase phase, const std::array<std::vector<OpRequest>, 2>& ran);
  /// A sample step begins or ends at `now` (node cycles).
  void step(bool begin, std::int64_t now);

  /// The per-epoch sums since the last call, per phase; resets them. The epoch is complete:
  /// the accelerator prices its sums, this epoch's and the run's so far, once.
  std::array<OpTotals, kNumPhases> take_epoch();
  /// take_epoch without pricing the run's sums (totals, layer_roles, unit, phase and
  /// discarded sums): for a caller that takes many epochs' sums and reads the run's only at
  /// the end, after price_run_sums() (a run's sums are priced from their counts alone, so
  /// pricing them once at the end gives what pricing them at every epoch gives).
  std::array<OpTotals, kNumPhases> take_epoch_sums();
  /// Prices the run's sums so far.
  void price_run_sums();
  /// Per epoch: step cycles and steps since the last call; resets them.
  std::pair<std::int64_t, std::int64_t> take_epoch_steps();

  const std::array<OpTotals, kNumPhases>& totals() const { return totals_; }
  /// [phase][layer][role]
  const std::vector<std::array<OpTotals, kNumRoles>>& layer_roles(Phase p) const {
    return layer_roles_[static_cast<int>(p)];
  }
  /// Zeroes the per-layer sums (layer_roles), so that the next batch's can be read alone.
  void clear_layer_roles();
  /// The unit (0 main, 1 the technique's second) that ran `layer`'s ops of `role` last.
  int unit_of(std::size_t layer, OpRole role) const {
    return layer_role_unit_[layer][static_cast<int>(role)];
  }
  /// Work per unit (0: main array and vector unit, 1: the technique's second unit), training.
  const std::array<OpTotals, 2>& unit_totals() const { return unit_totals_; }
  /// Work per unit and kind, training and evaluation: [unit][0: the array's ops (with
  /// MACs), 1: the vector unit's]. Unit 1 is the technique's second unit; its work ran on the
  /// main array and vector unit unless the technique has an array of its own.
  const std::array<std::array<OpTotals, 2>, 2>& unit_work() const { return unit_work_; }
  /// The ops of the first kTraceFlushes flushes, in issue order per unit.
  const std::vector<TraceOp>& trace() const { return trace_; }
  /// Training work per technique phase (TechniqueInfo::phases: ADA-GP's warm-up, Phase BP,
  /// Phase GP), elapsed included; empty for a technique without phases.
  const std::vector<OpTotals>& phase_totals() const { return phase_totals_; }
  /// The technique has phases: phase_totals() are kept.
  bool phased() const { return !phase_totals_.empty(); }
  /// Speculative work whose result was thrown away (training).
  const OpTotals& discarded() const { return discarded_; }
  /// Sum over sample steps of the time each took, and how many (per-sample techniques).
  std::int64_t step_cycles() const { return step_cycles_; }
  std::int64_t steps() const { return steps_; }

  /// Saves or restores everything that accumulates across batches (at an epoch boundary).
  void archive(StateArchive& a);

 private:
  const AcceleratorSpec& acc_;
  std::array<OpTotals, kNumPhases> totals_, epoch_;
  std::array<std::vector<std::array<OpTotals, kNumRoles>>, kNumPhases> layer_roles_;
  std::vector<std::array<std::uint8_t, kNumRoles>> layer_role_unit_;
  std::array<OpTotals, 2> unit_totals_;
  std::array<std::array<OpTotals, 2>, 2> unit_work_;
  std::vector<TraceOp> trace_;
  int trace_flushes_ = 0;
  std::vector<OpTotals> phase_totals_;  // per technique phase
  OpTotals discarded_;
  std::int64_t step_begin_ = 0, step_cycles_ = 0, steps_ = 0;
  std::int64_t epoch_step_cycles_ = 0, epoch_steps_ = 0;
};

}  // namespace trainsim
