#pragma once
// Times a training run on a device that prices its own ops (a GPU, an FPGA:
// sim/devices/device_model.h) from the op stream the real numerics issue
// (sim/train/op_stream.h): the counterpart of the accelerator session for such devices, so a
// technique whose work depends on the data (speculative backprop's hits and misses) is priced
// op by op as it trains.
//
// The device runs two streams: the main one (unit 0) and the technique's second unit (unit 1),
// e.g. speculative backprop's backward pass of a stored sample beside the next sample's
// forward pass (as a second CUDA stream would). Between two completion points
// (OpSink::complete) each stream runs its ops one after another, and the two together cannot
// keep more than the whole device busy:
//   elapsed = max(t_0, t_1, sum over both streams' ops of t_op x occupancy_op)
// (OpCost::occupancy: a GPU kernel with fewer thread blocks than SMs leaves the rest to the
// other stream; an op of a device that runs one op at a time takes all of it, so its streams
// take turns). This is the shortest time the device could take, as if the streams' ops packed
// perfectly. A technique whose second unit shares the main one (`unit: shared`) runs its ops
// after the main stream's: elapsed = t_0 + t_1.
//
// Energy: each op's dynamic energy (its energy less the device's static power over its time)
// plus the static power over the elapsed time, so overlapping ops pay static power once.
// The host's time to issue ops (GpuFit::host_op_us) is not modelled, as in a system's stage
// costs: runs on a device compare with each other the same way.
#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "sim/devices/device_model.h"
#include "sim/devices/op_cost_cache.h"
#include "sim/devices/priced_work.h"
#include "sim/nn/network.h"
#include "sim/train/op_stream.h"

namespace trainsim {

/// The work of a stretch of a stream session, priced.
struct StreamTotals {
  /// Both streams: `seconds` the elapsed time, `joules` dynamic energy plus static power
  /// over the elapsed time.
  PricedWork work;
  std::array<double, 2> stream_s{};  ///< each stream's ops one after another
  PricedWork discarded;              ///< speculative work thrown away, priced op by op
  StreamTotals& operator+=(const StreamTotals& o);
};

/// One op of the session's first flushes, for a run's timeline.
struct StreamTraceOp {
  double start_s = 0, end_s = 0;  ///< on the session's clock
  std::int32_t layer = 0;
  std::uint8_t stream = 0;  ///< 0 the main stream, 1 the technique's second unit
  std::uint8_t role = 0;
  bool discarded = false;
};

class ModelSession final : public OpStream, private OpSink {
 public:
  /// Prices `net`'s passes (spec's network, technique and optimizer) on `model`, which must
  /// outlive the session; `where` names the device's key in errors (an op it has no kernel
  /// for).
  ModelSession(const ExperimentSpec& spec, Network<float>& net, DeviceModel& model,
               std::string where);
  ~ModelSession() override;

  /// The per-epoch sums since the last call, per phase; resets them.
  std::array<StreamTotals, 2> take_epoch();
  const std::array<StreamTotals, 2>& totals() const { return totals_; }
  /// Sample steps (per-sample techniques): seconds summed and how many, since the last call.
  std::pair<double, std::int64_t> take_epoch_steps();
  /// Flushes the timeline shows: the first ones.
  static constexpr int kTraceFlushes = 24;
  const std::vector<StreamTraceOp>& trace() const { return trace_; }
  /// The session's clock: the elapsed time of every flush so far, s.
  double clock_s() const { return clock_s_; }

 private:
  void take(const Op& op, int unit, bool discarded) override;
  void complete(Phase phase, bool whole_step) override;
  void step(bool begin) override;

  struct Pending {
    const Op* op;
    const OpCost* cost;  // in costs_
    bool discarded;
  };

  Network<float>& net_;
  double static_w_;
  OpCostCache costs_;
  std::array<std::vector<Pending>, 2> pending_;  // per stream
  std::array<StreamTotals, 2> totals_, epoch_;   // per phase
  double clock_s_ = 0;
  double step_begin_s_ = 0, epoch_step_s_ = 0;
  std::int64_t epoch_steps_ = 0;
  std::vector<StreamTraceOp> trace_;
  int trace_flushes_ = 0;
};

}  // namespace trainsim
