#pragma once
// A training run on a system of devices: the network cut into stages, the schedule's task
// orders, and their execution on the SystemC platform, batch sequence by batch sequence.
//
// Synchronous pipelines (every schedule here) update the weights once per batch from the
// whole batch's gradients, so the numerics are those of one device with the same global
// batch; only when each op runs changes. A batch's tasks depend only on the shapes and the
// batch's kind (backprop, ADA-GP Phase BP or Phase GP), so an epoch is timed by executing
// each distinct stretch of batches once: a stretch ends with a backprop batch (whose update
// the next batch's forwards wait for) and is timed after the batch before it, as the
// difference T(before + stretch) - T(before), which keeps the overlap across the boundary.
#include <array>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "models/platform/interconnect.h"
#include "models/platform/platform.h"
#include "sim/pipeline/schedule.h"
#include "sim/pipeline/stage_costs.h"

namespace trainsim {

/// One execution of a sequence of batches on the platform.
struct BatchRun {
  std::vector<int> kinds;  ///< cost kind per batch
  int micro = 1;           ///< samples per micro-batch
  std::unique_ptr<TaskGraph> graph;
  DeviceOrders orders;
  PlatformResult result;
};

/// A link direction's traffic over many batches.
struct LinkTotals {
  std::int64_t bytes = 0, transfers = 0;
  double busy_s = 0, energy_pj = 0;
};

/// Times are summed in seconds (double): 90 epochs of ImageNet on a few small devices pass
/// 2^63 picoseconds (107 days), the platform's own unit.
struct PipelineEpoch {
  std::vector<std::int64_t> batches;  ///< by kind of batch (PipelineModel::kind_names())
  double time_s = 0;
  std::vector<double> busy_s;         ///< per device
  std::vector<OpTotals> device_work;  ///< per accelerator device, both units
  /// Per device with a model (DeviceSpec::model): the work it priced op by op.
  std::vector<PricedWork> device_priced;
  /// Per device, pJ for devices with a model, the accelerator's energy-table unit otherwise:
  /// set by PipelineModel::price_work().
  std::vector<double> device_energy;
  /// Per device, pJ: its static power over the time it was idle (not in device_energy, whose
  /// figures are its work's); NaN for an accelerator whose energy table is not in pJ.
  std::vector<double> idle_energy_pj;
  std::vector<LinkTotals> channels;  ///< per channel
};

/// Adds epoch `e` to `into` (counts, times and traffic; energy is priced afterwards).
void accumulate(PipelineEpoch& into, const PipelineEpoch& e);

class PipelineModel {
 public:
  /// `spec` has a system; UserError if its technique or pipeline cannot run there.
  PipelineModel(const ExperimentSpec& spec, const NetShape& shape);

  const ExperimentSpec& spec() const { return spec_; }
  const NetShape& shape() const { return shape_; }
  const Schedule& schedule() const { return schedule_; }
  const PipelineLayout& layout() const { return layout_; }
  const Interconnect& net() const { return net_; }
  /// Samples per micro-batch of a full batch: the batch over replicas x micro-batches.
  int micro_size() const {
    return spec_.training.batch_size / spec_.pipeline.total_micro_batches();
  }
  /// First layer of stage s is stage_first()[s]; stage_first()[stages] = layers.
  const std::vector<int>& stage_first() const { return first_; }
  /// The technique's kinds of batch (BatchRecipe::name), which PipelineEpoch::batches and a
  /// run's kinds index.
  const std::vector<std::string>& kind_names() const { return kind_names_; }
  StageCosts& costs() { return costs_; }

  /// Executes `kinds` (cost kinds) with micro-batches of `micro` samples, from an idle
  /// system.
  BatchRun run(const std::vector<int>& kinds, int micro);
  /// The time of the training batches of one epoch with `batches` full batches of kinds
  /// `kinds` and, if `rest` > 0, a last partial batch of `rest` samples (padded to the
  /// micro-batch count) of kind `kinds.back()`.
  PipelineEpoch epoch(const std::vector<int>& kinds, std::int64_t rest);
  /// Each device prices its work in `e` on its own accelerator (epoch() does for its epochs;
  /// a sum of epochs is priced again once complete).
  void price_work(PipelineEpoch& e) const;

  /// Picoseconds a task takes (`micro` samples per micro-batch, batch of `cost_kind`).
  std::int64_t task_ps(const Task& t, int micro, int cost_kind);
  /// Bytes an edge carries between devices for micro-batches of `micro` samples.
  std::int64_t edge_bytes(const Task& from, EdgeData data, int micro) const;
  /// Activation bytes one micro-batch of one sample keeps on stage s until its backward:
  /// the stage's input and every output of its layers.
  std::int64_t stage_activation_bytes(int stage) const;
  /// Parameter bytes of stage s.
  std::int64_t stage_weight_bytes(int stage) const;
  /// Weights held by `device` (every stage replica it holds).
  std::int64_t device_weight_bytes(int device) const;
  /// The largest activation memory `device` held at any time during `run`.
  std::int64_t peak_activation_bytes(const BatchRun& run, int device) const;
  /// The most micro-batches between forward and backward on `device` during `run`.
  int peak_inflight(const BatchRun& run, int device) const;
  /// The largest of those over every run so far, per device.
  const std::vector<std::int64_t>& peak_activation_bytes() const { return peak_bytes_; }
  const std::vector<int>& peak_inflight() const { return peak_inflight_; }

 private:
  std::int64_t sequence_ps(const std::vector<int>& kinds, int micro);
  /// One batch of `kind` alone: its busy time and link traffic.
  const BatchRun& single(int kind, int micro);

 public:
  /// The work every device does in one batch of `kind` (both units summed), as an
  /// accelerator counts it or as a device with a model prices it.
  struct DeviceBatchWork {
    std::vector<OpTotals> counted;
    std::vector<PricedWork> priced;
  };
  const DeviceBatchWork& batch_work(int kind, int micro);

 private:
  const ExperimentSpec& spec_;
  const NetShape& shape_;
  const Schedule& schedule_;
  ScheduleParams params_;       // what the schedule lays out and orders (one replica)
  PipelineLayout base_layout_;  // one replica's, as the schedule lays it out
  PipelineLayout layout_;       // every replica's
  Interconnect net_;
  StageCosts costs_;
  std::vector<int> first_;
  std::vector<std::int64_t> boundary_words_;  // per sample, leaving stage s forward
  std::map<std::pair<std::vector<int>, int>, std::int64_t> makespans_;
  std::map<std::pair<int, int>, BatchRun> singles_;
  std::map<std::pair<int, int>, DeviceBatchWork> work_;
  std::map<std::pair<std::vector<int>, std::int64_t>, PipelineEpoch> epochs_;
  std::int64_t word_bytes(int stage) const;
  std::vector<std::string> kind_names_;  // by kind of batch: the technique's recipes' names
  std::vector<bool> backprop_kind_;      // by kind of batch: it runs a backward pass
  std::vector<std::int64_t> peak_bytes_;
  std::vector<int> peak_inflight_;
  std::vector<double> static_w_;  // per device; NaN: not in watts
};

}  // namespace trainsim
