#pragma once
// What each pipeline task costs: the ops of its stage's layers for one micro-batch, timed
// by the same accelerator model as a single-device run. For every device accelerator,
// micro-batch size and kind of batch, one batch of that many samples is sent through an
// AcceleratorSession (shape only, sim/train/shape_only_run.h) and its per-layer, per-role
// sums are kept; a task's work is the sum over its layers of the roles of its pass:
//   F  forward (Phase GP: and the predictor's forward, predicting during the forward pass)
//   Bd backward-data and activation derivatives     W  backward-weight     B = Bd + W
//   U  the optimizer's update (Phase BP: and the predictor's training), once per batch
// A technique's second unit with an array of its own (ADA-GP-MAX's predictor array) runs
// its share beside the main array, so a task takes the longer of the two; otherwise the sum.
// A device of another kind (a GPU, an FPGA: DeviceSpec::model) gets the same op stream and
// prices each op with its own model (sim/pipeline/device_stage_costs.h); its ops run one
// after another.
#include <array>
#include <map>
#include <memory>
#include <tuple>
#include <vector>

#include "models/platform/task_graph.h"
#include "sim/devices/device_model.h"
#include "sim/devices/priced_work.h"
#include "sim/spec/specs.h"
#include "sim/train/accel_session.h"
#include "sim/workload/net_shape.h"

namespace trainsim {

/// A `cost_kind` is a kind of batch: an index into the technique's ShapeOnlyPlan::recipes
/// (sim/techniques/technique.h; kBaseBatchKind, the first, is what stages are balanced on).

/// Which pass a role's work belongs to in a batch of `cost_kind`; -1: none (roles of
/// techniques that cannot run on a pipeline).
int pass_of_role(OpRole role, int cost_kind);

/// One pass of one layer for one micro-batch: its ops on the main array and on the second
/// (an accelerator), or as its own model priced them (any other kind).
struct PassWork {
  std::array<OpTotals, 2> unit;
  PricedWork priced;
};

struct LayerWork {
  std::vector<std::array<PassWork, kNumPasses>> layers;  ///< [layer][Pass]
  bool own_unit = false;
  bool priced = false;  ///< a device with a model: `priced` holds the work, not `unit`
  double clock_ghz = 1;
};

class StageCosts {
 public:
  /// `spec` has a system; stage s holds layers [first[s], first[s+1]).
  StageCosts(const ExperimentSpec& spec, const NetShape& shape);

  /// The per-layer work on `device` for micro-batches of `micro` samples in a batch of
  /// `cost_kind`; computed once per distinct device accelerator.
  const LayerWork& work(int device, int micro, int cost_kind);
  /// The summed work of `pass` over layers [first, last) on `device`.
  std::array<OpTotals, 2> stage_work(int device, int micro, int cost_kind, int first, int last,
                                     Pass pass);
  /// Power a device with a model (DeviceSpec::model) draws while idle, W.
  double model_static_w(int device);
  /// The same for a device with a model (DeviceSpec::model): what it priced.
  PricedWork stage_priced(int device, int micro, int cost_kind, int first, int last, Pass pass);
  /// Picoseconds for that work on the device (the two units side by side if it has two).
  std::int64_t stage_ps(int device, int micro, int cost_kind, int first, int last, Pass pass);

 private:
  const ExperimentSpec& spec_;
  const NetShape& shape_;
  std::vector<int> device_class_;  // device -> first device with the same accelerator
  // Devices with a model, by class: built once (a model memoizes its ops' costs).
  std::map<int, std::unique_ptr<DeviceModel>> models_;
  DeviceModel& model_of(int cls);
  std::map<std::tuple<int, int, int>, LayerWork> cache_;
  // One session per accelerator class and micro-batch size, each on its own SystemC node:
  // its cost model's memo (the mapping searches) and flush memo serve every kind of batch.
  struct Session {
    std::unique_ptr<ExperimentSpec> spec;  // the device's: the session keeps a reference
    std::unique_ptr<AcceleratorSession> session;
  };
  std::map<std::pair<int, int>, Session> sessions_;
};

/// Stage boundaries for the layout's stages: explicit (spec.pipeline.stages) or balanced so
/// the slowest stage's forward and backward of one micro-batch, each on the device that holds
/// it (its first pipe's), is as fast as it can be. Returns first layer per stage plus the
/// layer count at the end (stages + 1 entries).
std::vector<int> partition_stages(const ExperimentSpec& spec, const NetShape& shape,
                                  StageCosts& costs, const PipelineLayout& layout, int micro);

}  // namespace trainsim
