#pragma once
// The fast fidelity's ExecutionContext: array passes cost the dataflow's closed form
// (memoized per tile shape within the op), and the DRAM channel is the op's alone, with the
// bandwidth, latency and first-come-first-served rule of models/shared_channel.h, so that a
// schedule takes exactly the cycles the SystemC model takes when nothing else uses the
// channel.
#include <map>
#include <tuple>

#include "sim/accel/memory_model.h"
#include "sim/core/checked_span.h"

namespace trainsim {

class FastContext final : public ExecutionContext {
 public:
  FastContext(const AcceleratorSpec& acc, const Dataflow* df) : acc_(acc), df_(df) {}
  std::int64_t now() const override { return now_; }
  void wait_until(std::int64_t cycle) override { now_ = std::max(now_, cycle); }
  std::int64_t transfer(std::int64_t bytes) override;
  const OpStats& compute(const Op& tile, const NestProblem* p, const TileBox* box) override;
  void busy(std::int64_t cycles) override { now_ += cycles; }

 private:
  // kind, role and the nine numbers of a GEMM or conv shape.
  using Shape = std::tuple<int, int, std::int64_t, std::int64_t, std::int64_t, std::int64_t,
                           std::int64_t, std::int64_t, std::int64_t, std::int64_t, std::int64_t>;
  const AcceleratorSpec& acc_;
  const Dataflow* df_;
  std::int64_t now_ = 0, channel_free_ = 0;
  std::map<Shape, OpStats> cache_;
};

/// Cycles the DRAM channel occupies for `bytes` (ceil(bytes / bytes per cycle); 0 for 0);
/// UserError naming accelerator.dram.bandwidth_gbps past 2^62 (sim/core/checked_span.h).
std::int64_t dram_occupancy(std::int64_t bytes, const AcceleratorSpec& acc);
/// The keys a DRAM time past 2^62 cycles blames: the bandwidth, and the clock it is per.
SpanBlame dram_blame(const AcceleratorSpec& acc);

}  // namespace trainsim
