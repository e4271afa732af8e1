#pragma once
// A one-device system training with a technique whose work depends on the data (bp-sample,
// speculative backprop): no schedule over shapes can time it, so its time comes from the ops
// the numerics issue, batch by batch, as on a single accelerator. The device's own session
// prices them: an accelerator's SystemC session (sim/train/accel_session.h; the device's
// accelerator and dataflow), any other kind's model with two streams
// (sim/train/model_session.h). Each epoch becomes the system's epoch record, so the run's
// files and figures are a system run's like any other.
#include <cstdint>
#include <memory>
#include <vector>

#include "sim/nn/network.h"
#include "sim/pipeline/pipeline_model.h"
#include "sim/spec/specs.h"
#include "sim/train/model_session.h"
#include "sim/train/trainer.h"

namespace trainsim {

class AcceleratorSession;

/// Whether `spec`'s technique is timed from the numerics' ops (its work depends on the data:
/// it has no schedule over shapes).
bool streamed_technique(const ExperimentSpec& spec);
/// UserError unless such a run can happen: one device, one replica, real numerics.
void check_streamed_system(const ExperimentSpec& spec);
/// `spec` with backprop in place of its technique: the layout of its devices and links, and
/// the per-stage reference costs stages.csv lists, for a run timed from the ops.
ExperimentSpec layout_spec(const ExperimentSpec& spec);

class StreamedDevice {
 public:
  /// Attaches to `trainer`'s network for `spec`'s one device; UserError if the system has
  /// more than one device or replica, or (an accelerator) if the technique's storage in its
  /// buffer does not fit.
  StreamedDevice(const ExperimentSpec& spec, Trainer& trainer);
  ~StreamedDevice();

  /// The training work since the last call (`batches` batches) as a one-device, link-less
  /// epoch with `channels` channels of zero traffic; not yet priced (PipelineModel::price_work).
  PipelineEpoch take_epoch(std::int64_t batches, std::size_t channels);
  /// Seconds per sample step of the epoch last taken (per-sample techniques), or -1 if it
  /// had no sample steps.
  double step_seconds() const { return step_s_; }
  /// The first flushes' ops, on the device's clock, for the timeline.
  std::vector<StreamTraceOp> trace() const;

 private:
  ExperimentSpec spec_;  // the device's accelerator and dataflow as the experiment's
  std::unique_ptr<DeviceModel> model_;
  std::unique_ptr<ModelSession> priced_;
  std::unique_ptr<AcceleratorSession> counted_;
  double step_s_ = -1;
};

}  // namespace trainsim
