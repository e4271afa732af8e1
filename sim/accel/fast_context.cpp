#include "sim/accel/fast_context.h"

#include <cmath>

#include "sim/core/checked_span.h"

namespace trainsim {

SpanBlame dram_blame(const AcceleratorSpec& acc) {
  return {"accelerator.dram.bandwidth_gbps", acc.dram.bandwidth_gbps,
          "the DRAM transfers of an op",     "cycles",
          "accelerator.clock_ghz",           acc.clock_ghz};
}

std::int64_t dram_occupancy(std::int64_t bytes, const AcceleratorSpec& acc) {
  if (bytes <= 0) return 0;
  // The same arithmetic as SharedChannel::transfer, so both fidelities round alike.
  return checked_ceil(static_cast<double>(bytes) / acc.dram_bytes_per_cycle(), dram_blame(acc));
}

std::int64_t FastContext::transfer(std::int64_t bytes) {
  if (bytes <= 0) return now_;
  const std::int64_t start = std::max(now_, channel_free_);
  channel_free_ = add_span(start, dram_occupancy(bytes, acc_), dram_blame(acc_));
  return channel_free_ + acc_.dram.latency_cycles;
}

const OpStats& FastContext::compute(const Op& tile, const NestProblem*, const TileBox*) {
  const ConvShape& c = tile.conv;
  const int role = static_cast<int>(tile.role);
  const Shape key = tile.kind == OpKind::kGemm
                        ? Shape{0, role, tile.gemm.m, tile.gemm.n, tile.gemm.k, 0, 0, 0, 0, 0, 0}
                        : Shape{1,         role,       c.batch,    c.channels, c.height, c.width,
                                c.filters, c.kernel_h, c.kernel_w, c.stride,   c.pad};
  auto it = cache_.find(key);
  if (it == cache_.end()) it = cache_.emplace(key, df_->evaluate(tile, acc_)).first;
  now_ += it->second.compute_cycles;
  return it->second;
}

}  // namespace trainsim
