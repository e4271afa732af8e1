#include "sim/accel/fast_context.h"

#include <algorithm>
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
  // dram_occupancy's arithmetic, with the bandwidth in bytes per cycle computed once.
  const std::size_t slot = static_cast<std::size_t>(mix64(static_cast<std::uint64_t>(bytes)) & 7u);
  if (sizes_[slot] != bytes) {
    sizes_[slot] = bytes;
    occupancy_[slot] = checked_ceil(static_cast<double>(bytes) / bytes_per_cycle_, blame_);
  }
  channel_free_ = add_span(start, occupancy_[slot], blame_);
  return channel_free_ + latency_;
}

const OpStats& FastContext::compute(const Op& tile, const NestProblem*, const TileBox*) {
  const OpStats& s = compute_shape_of(tile);
  now_ += s.compute_cycles;
  return s;
}

const OpStats& FastContext::compute_shape_of(const Op& tile) {
  const ConvShape& c = tile.conv;
  const int role = static_cast<int>(tile.role);
  const Shape key = tile.kind == OpKind::kGemm
                        ? Shape{0, role, tile.gemm.m, tile.gemm.n, tile.gemm.k, 0, 0, 0, 0, 0, 0}
                        : Shape{1,         role,       c.batch,    c.channels, c.height, c.width,
                                c.filters, c.kernel_h, c.kernel_w, c.stride,   c.pad};
  auto it = cache_.by_shape.find(key);
  if (it == cache_.by_shape.end())
    it = cache_.by_shape.emplace(key, df_->evaluate(tile, acc_)).first;
  return it->second;
}

const OpStats& FastContext::compute_tile(const NestProblem& p, const TileBox& box) {
  const OpStats& s = tile_cost(p, box);
  now_ += s.compute_cycles;
  return s;
}

const OpStats& FastContext::tile_cost(const NestProblem& p, const TileBox& box) {
  // The tiles of one op repeat a few shapes thousands of times: found by the box, the op is
  // built only for a new shape. A cache serves one problem.
  if (cache_.problem == nullptr) cache_.problem = &p;
  if (cache_.problem != &p) return compute_shape_of(tile_op(p, box));
  // Consecutive tiles mostly have the same shape.
  const bool dense = p.k_rows.step == 1 && p.k_cols.step == 1;
  if (last_stats_ != nullptr && dense &&
      std::equal(box.extent.begin(), box.extent.end(), last_key_.begin()))
    return *last_stats_;
  TileKey k;
  for (int d = 0; d < kNumDims; ++d) k[static_cast<std::size_t>(d)] = box.extent[d];
  k[7] = p.stored_kernel_rows(box);
  k[8] = p.stored_kernel_cols(box);
  if (last_stats_ == nullptr || k != last_key_) {
    auto it = cache_.by_tile.find(k);
    if (it == cache_.by_tile.end())
      it = cache_.by_tile.emplace(k, &compute_shape_of(tile_op(p, box))).first;
    last_key_ = k;
    last_stats_ = it->second;
  }
  return *last_stats_;
}

}  // namespace trainsim
