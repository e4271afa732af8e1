#pragma once
// Times a training run on the simulated accelerator. Its op stream (sim/train/op_stream.h)
// turns the network's passes into ops; the session sends each finished batch's ops through
// its own SystemC accelerator node (models/accel_node.h), so simulated time advances batch by
// batch, replaying a flush that repeats an earlier one (sim/train/flush_memo.h), and hands
// what ran to its record (sim/train/session_record.h), which keeps the sums trainsim run
// reports.
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
#include "sim/train/session_record.h"
#include "sim/workload/lowering.h"
#include "sim/workload/net_shape.h"

namespace trainsim {

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

  /// What the session keeps of the ops it ran: sums, steps, the timeline's first flushes.
  SessionRecord& record() { return record_; }
  const SessionRecord& record() const { return record_; }
  /// PEs of the technique's own array and bytes of its dedicated memory (ADA-GP: the
  /// predictor's weights): what its hardware adds to the device (TechniqueHardware).
  std::int64_t extra_pes() const { return extra_pes_; }
  std::int64_t extra_storage_bytes() const { return extra_storage_bytes_; }
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
  Fidelity fidelity() const { return fidelity_; }
  /// Op shapes it made operand values for, which the clocked array computes on (cycle
  /// fidelity; 0 in fast).
  std::size_t operand_shapes() const { return operands_.size(); }
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
  std::int64_t extra_pes_ = 0, extra_storage_bytes_ = 0;
  std::map<std::string, OperandValues> operands_;  // cycle fidelity: by op description
  SessionRecord record_;
};

}  // namespace trainsim
