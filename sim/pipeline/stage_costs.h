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
#include <array>
#include <map>
#include <memory>
#include <tuple>
#include <vector>

#include "models/platform/task_graph.h"
#include "sim/spec/specs.h"
#include "sim/train/accel_session.h"
#include "sim/workload/net_shape.h"

namespace trainsim {

/// Kinds of batch as the costs see them (those of shape_only_run.h): backprop (bp, ADA-GP's
/// warm-up), ADA-GP Phase BP (backprop and the predictor's training), Phase GP.
inline constexpr int kCostBackprop = 0, kCostPhaseBp = 1, kCostPhaseGp = 2;

/// One pass of one layer for one micro-batch: its ops on the main array and on the second.
struct PassWork {
  std::array<OpTotals, 2> unit;
};

struct LayerWork {
  std::vector<std::array<PassWork, kNumPasses>> layers;  ///< [layer][Pass]
  bool own_unit = false;
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
  /// Picoseconds for that work on the device (the two units side by side if it has two).
  std::int64_t stage_ps(int device, int micro, int cost_kind, int first, int last, Pass pass);

 private:
  const ExperimentSpec& spec_;
  const NetShape& shape_;
  std::vector<int> device_class_;  // device -> first device with the same accelerator
  std::map<std::tuple<int, int, int>, LayerWork> cache_;
  struct Session {
    std::pair<int, int> key{-1, 0};        // device kind, micro-batch size
    std::unique_ptr<ExperimentSpec> spec;  // the device's: the session keeps a reference
    std::unique_ptr<AcceleratorSession> session;
  };
  Session session_;
};

/// Stage boundaries for `stages` stages: explicit (spec.pipeline.stages) or balanced so the
/// slowest stage's forward and backward of one micro-batch on device 0 is as fast as it can
/// be. Returns first layer per stage plus the layer count at the end (stages + 1 entries).
std::vector<int> partition_stages(const ExperimentSpec& spec, const NetShape& shape,
                                  StageCosts& costs, int stages, int micro);

}  // namespace trainsim
