#pragma once
// The tiles of a buffer mapping in execution order, with what each moves: the operand tiles
// that changed since the previous tile are fetched before it, partial sums of an output tile
// revisited by a later reduction tile are read back, and an output tile is written out
// after its last consecutive tile (finished, or spilled when the reduction continues later).
// Summed over the walk, these are exactly the closed form's DRAM counts (tested); the
// timing (sim/accel/tiled_memory.h) and the cycle fidelity both follow this walk.
#include <array>
#include <cstdint>
#include <vector>

#include "mapping/buffer_mapping.h"

namespace trainsim {

struct TileStep {
  TileBox box;
  std::int64_t index = 0;
  /// Words read from DRAM before the tile can run (ofmap: partial sums read back).
  std::array<std::int64_t, kNumOperands> fetch_words{};
  /// Ofmap words written to DRAM after the tile.
  std::int64_t write_words = 0;
  bool new_output = false;  ///< first tile of an output tile's (consecutive) visit
};

class TileWalk {
 public:
  TileWalk(const NestProblem& p, const BufferMapping& m, const OperandResidency& res);
  /// The next tile; false after the last.
  bool next(TileStep& step);
  std::int64_t tiles() const { return tiles_; }

  // A loop repeats the tiles inside it: a timing of the walk that sees the same clock state
  // at the start of two iterations of a loop whose tiles are the same may skip the iterations
  // after them that are the same too (sim/accel/tiled_memory.cpp). Loops are numbered by
  // position, outermost 0.
  /// After next(): the loop whose index that tile advanced (the loops inside it wrapped to
  /// 0) and its new index; false for the first tile.
  bool advanced(int& loop, std::int64_t& iteration) const {
    if (count_ <= 1) return false;
    loop = advanced_;
    iteration = idx_[loop_dim_[advanced_]];
    return true;
  }
  /// Tiles in one iteration of `loop`.
  std::int64_t tiles_inside(int loop) const { return inside_[loop]; }
  /// Whether iterations i and j of `loop`, at the current indices of the loops outside it,
  /// give the same steps: fetches, writes, tile shapes and stored kernel positions (all but
  /// the boxes' origins and the indices). Only iterations that are neither the loop's first
  /// (entered from an outer loop's step) nor its last (which leads to one) qualify, and only
  /// loops over N, K, C, P or Q.
  bool same_iterations(int loop, std::int64_t i, std::int64_t j) const;
  /// The last iteration j of `loop` such that every one from i to j is the same as i.
  std::int64_t last_same(int loop, std::int64_t i) const;
  /// Makes the next next() give the first tile of iteration i (>= 1) of `loop`, the loops
  /// outside it where they are, as if every tile before it had been walked.
  void seek(int loop, std::int64_t i);

 private:
  /// Dimensions that change when the odometer advances from `idx_`; empty array (count 0)
  /// when `idx_` is the last position.
  int advancing(std::array<int, kNumDims>& dims, int* loop = nullptr) const;

  /// Words of operand `o` in the tile at `idx_` (p_.tile_words of its box, from the tables).
  std::int64_t words(int o) const;

  const NestProblem& p_;
  OperandResidency res_;
  std::array<std::int64_t, kNumDims> tile_{}, trips_{}, idx_{};
  std::array<int, kNumDims> loop_dim_{};  ///< loop position (outermost first) -> dimension
  std::array<std::int64_t, kNumOperands> total_{};
  std::int64_t tiles_ = 1, count_ = 0;
  int advanced_ = 0;                             ///< the loop the last step advanced
  std::array<std::int64_t, kNumDims> inside_{};  ///< tiles per iteration of each loop
  // What tile_words multiplies, per tile index: each dimension's extent, the stored input rows
  // (columns) under output-row (-column) tile i and kernel-row (-column) tile j at
  // [i * trips R (S) + j], and the stored kernel rows (columns). A walk visits each tile of
  // a dimension many times; these are computed once.
  std::array<std::vector<std::int64_t>, kNumDims> extent_;
  std::vector<std::int64_t> in_rows_, in_cols_, k_rows_, k_cols_;
};

}  // namespace trainsim
