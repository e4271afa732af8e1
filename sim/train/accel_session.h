#pragma once
// Times a training run on the simulated accelerator. Its op stream (sim/train/op_stream.h)
// turns the network's passes into ops; the session sends each finished batch's ops through
// its own SystemC accelerator node (models/accel_node.h), so simulated time advances batch by
// batch, and keeps the sums trainsim run reports: per phase (training, evaluation), per epoch, and
// per layer x role.
#include <array>
#include <cstdint>
#include <map>
#include <tuple>
#include <vector>

#include "models/accel_node.h"
#include "sim/accel/op_totals.h"
#include "sim/core/state_archive.h"
#include "sim/nn/network.h"
#include "sim/spec/specs.h"
#include "sim/techniques/technique.h"
#include "sim/train/flush_memo.h"
#include "sim/train/op_stream.h"
#include "sim/train/residency.h"
#include "sim/workload/lowering.h"
#include "sim/workload/net_shape.h"

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

class AcceleratorSession final : public OpStream, private OpSink {
 public:
  /// Builds a SystemC node for spec.sim's accelerator and attaches to `net`. `dataflow`
  /// replaces spec.sim.dataflow's (tests time ops with a dataflow of their own).
  AcceleratorSession(const ExperimentSpec& spec, Network<float>& net,
                     const Dataflow* dataflow = nullptr);
  /// The same for spec.network without a Network (numerics: none): whoever drives the
  /// session calls the PassObserver methods itself (sim/train/shape_only_run.h).
  explicit AcceleratorSession(const ExperimentSpec& spec, const Dataflow* dataflow = nullptr);
  ~AcceleratorSession() override;

  /// The per-epoch sums since the last call, per phase; resets them.
  std::array<OpTotals, kNumPhases> take_epoch();
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
  /// main array and vector unit unless the technique has an array of its own (own_unit()).
  const std::array<std::array<OpTotals, 2>, 2>& unit_work() const { return unit_work_; }
  /// Flushes of a run the timeline shows: its first ones (a training batch is one or a few;
  /// a bounded window keeps the trace file small whatever the run's length).
  static constexpr int kTraceFlushes = 24;
  /// The ops of the first kTraceFlushes flushes, in issue order per unit.
  const std::vector<TraceOp>& trace() const { return trace_; }
  /// Training work per technique phase (TechniqueInfo::phases: ADA-GP's warm-up, Phase BP,
  /// Phase GP), elapsed included; empty for a technique without phases.
  const std::vector<OpTotals>& phase_totals() const { return phase_totals_; }
  /// PEs of the technique's own array and bytes of its dedicated memory (ADA-GP: the
  /// predictor's weights): what its hardware adds to the device (TechniqueHardware).
  std::int64_t extra_pes() const { return extra_pes_; }
  std::int64_t extra_storage_bytes() const { return extra_storage_bytes_; }
  /// The technique has phases (TechniqueInfo::phases): phase_totals() are kept.
  bool phased() const { return !phase_totals_.empty(); }
  /// Speculative work whose result was thrown away (training).
  const OpTotals& discarded() const { return discarded_; }
  /// Sum over sample steps of the time each took, and how many (per-sample techniques).
  std::int64_t step_cycles() const { return step_cycles_; }
  std::int64_t steps() const { return steps_; }
  /// Per epoch: step cycles and steps since the last call; resets them.
  std::pair<std::int64_t, std::int64_t> take_epoch_steps();
  /// PEs of every array the session's ops run on: the main one, and a technique's own
  /// (ADA-GP-MAX's predictor array, speculative backprop's unit) when it has one.
  std::int64_t array_pes() const;
  /// Simulated accelerator cycles so far (SystemC time), all phases.
  std::int64_t simulated_cycles() const;
  const AcceleratorSpec& accelerator() const { return spec_.sim.accelerator; }
  const TechniqueSpec& technique() const { return spec_.sim.technique; }
  const Dataflow& dataflow() const { return *dataflow_; }
  AcceleratorNode& node() { return node_; }
  /// Whether a flush that repeats an earlier one's ops replays its results (on by default
  /// in fast fidelity; tests switch it off to compare).
  void set_flush_memo(bool on) { memo_ = on && fidelity_ == Fidelity::kFast; }
  /// Flushes run on the SystemC model / replayed from an earlier identical one.
  std::int64_t flushes_run() const { return flushes_run_; }
  std::int64_t flushes_replayed() const { return flushes_replayed_; }
  /// Saves or restores the run's accumulated sums and simulated time at an epoch boundary
  /// (nothing pending), for checkpoints; defined in sim/train/checkpoint.cpp, which must
  /// learn about every new member that accumulates across batches.
  void checkpoint(StateArchive& a);

 private:
  void take(const Op& op, int unit, bool discarded) override;
  void complete(Phase phase, bool whole_step) override { flush(phase, whole_step); }
  void step(bool begin) override;

  /// Runs the pending ops of both units and accounts them to `phase`. `whole_step`: they
  /// complete a training step or evaluation batch (residency may drop dead tensors).
  void flush(Phase phase, bool whole_step = false);
  /// Plans and runs the pending ops on the SystemC model.
  void run_pending(bool whole_step);

  const ExperimentSpec& spec_;
  Network<float>* net_ = nullptr;  // attached to as its observer (none: shape only)
  const Dataflow* dataflow_;
  Fidelity fidelity_;
  AcceleratorNode node_;
  std::array<std::vector<OpRequest>, 2> pending_;  // per unit
  // Replays flushes that repeat an earlier one's ops (sim/train/flush_memo.h); on in fast
  // fidelity only (cycle fidelity computes each op's outputs).
  bool memo_ = false;
  FlushMemo flush_memo_;
  std::int64_t flushes_run_ = 0, flushes_replayed_ = 0;
  bool residency_ = false;                    // plan inter-op residency (tiled memory)
  std::array<ResidencyPlanner, 2> planners_;  // per unit
  std::vector<bool> discarded_flags_;         // parallel to pending_[1]
  std::array<OpTotals, 2> unit_totals_;
  std::array<std::array<OpTotals, 2>, 2> unit_work_;
  std::vector<TraceOp> trace_;
  int trace_flushes_ = 0;
  std::vector<OpTotals> phase_totals_;  // per technique phase
  std::int64_t extra_pes_ = 0, extra_storage_bytes_ = 0;
  OpTotals discarded_;
  std::int64_t step_begin_ = 0, step_cycles_ = 0, steps_ = 0;
  std::int64_t epoch_step_cycles_ = 0, epoch_steps_ = 0;
  std::map<std::string, OperandValues> operands_;  // cycle fidelity: by op description
  std::array<OpTotals, kNumPhases> totals_, epoch_;
  std::array<std::vector<std::array<OpTotals, kNumRoles>>, kNumPhases> layer_roles_;
  std::vector<std::array<std::uint8_t, kNumRoles>> layer_role_unit_;
};

}  // namespace trainsim
