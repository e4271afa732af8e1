#pragma once
// The fast fidelity's ExecutionContext: array passes cost the dataflow's closed form
// (memoized per tile shape within the op), and the DRAM channel is the op's alone, with the
// bandwidth, latency and first-come-first-served rule of models/shared_channel.h, so that a
// schedule takes exactly the cycles the SystemC model takes when nothing else uses the
// channel.
#include <array>
#include <map>
#include <tuple>
#include <unordered_map>

#include "sim/accel/memory_model.h"
#include "sim/core/checked_span.h"
#include "sim/core/hash.h"

namespace trainsim {

/// The keys a DRAM time past 2^62 cycles blames: the bandwidth, and the clock it is per.
SpanBlame dram_blame(const AcceleratorSpec& acc);

class FastContext final : public ExecutionContext {
 public:
  // kind, role and the nine numbers of a GEMM or conv shape.
  using Shape = std::tuple<int, int, std::int64_t, std::int64_t, std::int64_t, std::int64_t,
                           std::int64_t, std::int64_t, std::int64_t, std::int64_t, std::int64_t>;
  /// What a tile of `problem` is keyed by in `by_tile`: its extents and its kernel's stored
  /// rows and columns (all tile_op depends on).
  using TileKey = std::array<std::int64_t, 9>;
  /// The array's cost per op shape, and per tile of one problem. `shared` lets several
  /// contexts of one problem (the buffer-mapping search pricing one candidate after another)
  /// reuse one.
  struct Cache {
    std::map<Shape, OpStats> by_shape;
    const NestProblem* problem = nullptr;
    std::unordered_map<TileKey, const OpStats*, WordsHash<9>> by_tile;
  };
  FastContext(const AcceleratorSpec& acc, const Dataflow* df, Cache* shared = nullptr)
      : acc_(acc),
        df_(df),
        bytes_per_cycle_(acc.dram_bytes_per_cycle()),
        latency_(acc.dram.latency_cycles),
        blame_(dram_blame(acc)),
        cache_(shared ? *shared : own_) {}
  std::int64_t now() const override { return now_; }
  void wait_until(std::int64_t cycle) override { now_ = std::max(now_, cycle); }
  std::int64_t transfer(std::int64_t bytes) override;
  const OpStats& compute(const Op& tile, const NestProblem* p, const TileBox* box) override;
  const OpStats& compute_tile(const NestProblem& p, const TileBox& box) override;
  bool times_alone() const override { return true; }
  const OpStats& tile_cost(const NestProblem& p, const TileBox& box) override;
  void busy(std::int64_t cycles) override { now_ += cycles; }
  std::int64_t channel_free() const override { return channel_free_; }
  void jump(std::int64_t now, std::int64_t channel_free) override {
    now_ = now;
    channel_free_ = channel_free;
  }

 private:
  // The array's cost of an op shape (memoized; the clock does not move).
  const OpStats& compute_shape_of(const Op& tile);

  const AcceleratorSpec& acc_;
  const Dataflow* df_;
  double bytes_per_cycle_;
  std::int64_t latency_;
  SpanBlame blame_;  // dram_blame(acc_), asked at every transfer
  // Occupancy of the last transfer sizes: a tile walk moves a few sizes over and over.
  std::array<std::int64_t, 8> sizes_{-1, -1, -1, -1, -1, -1, -1, -1}, occupancy_{};
  std::int64_t now_ = 0, channel_free_ = 0;
  Cache own_;
  Cache& cache_;
  TileKey last_key_{};
  const OpStats* last_stats_ = nullptr;
};

/// A FastContext's arithmetic through a context that does not time alone, so that a schedule
/// steps through every tile or chunk instead of taking its shortcuts (the closed form, jumps
/// over repeated steps): what those shortcuts are checked against.
class SteppedContext final : public ExecutionContext {
 public:
  explicit SteppedContext(FastContext& f) : f_(f) {}
  std::int64_t now() const override { return f_.now(); }
  void wait_until(std::int64_t cycle) override { f_.wait_until(cycle); }
  std::int64_t transfer(std::int64_t bytes) override { return f_.transfer(bytes); }
  const OpStats& compute(const Op& tile, const NestProblem* p, const TileBox* box) override {
    return f_.compute(tile, p, box);
  }
  const OpStats& compute_tile(const NestProblem& p, const TileBox& box) override {
    return f_.compute_tile(p, box);
  }
  void busy(std::int64_t cycles) override { f_.busy(cycles); }

 private:
  FastContext& f_;
};

/// Cycles the DRAM channel occupies for `bytes` (ceil(bytes / bytes per cycle); 0 for 0);
/// UserError naming accelerator.dram.bandwidth_gbps past 2^62 (sim/core/checked_span.h).
std::int64_t dram_occupancy(std::int64_t bytes, const AcceleratorSpec& acc);

}  // namespace trainsim
