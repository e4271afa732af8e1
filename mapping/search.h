#pragma once
// The buffer mapping of an op: the mapping with the least DRAM traffic that fits the
// buffer; among those with exactly the least traffic, the one with the least energy, which
// the caller prices (the array's cost of the tiles, the memory level's accesses, leakage
// over the time taken).
//
// Search space. Tile sizes per dimension are the smallest tile of each trip count among
// 1-16, then trip counts growing by ~1.25x up to one element per tile; a dataflow asks for
// multiples of the groups it works on at once (array rows or columns, register-file
// interleaves) on some dimensions, so tiling keeps its mapping of each tile as the whole op's.
// Within a block the dimensions shrink in a fixed order, the one that adds no halo first: batch,
// then output rows, then columns; channels, then kernel rows, then columns. For each pair of
// block-W (N, P, Q) and block-O (C, R, S) tiles the K tile is the largest that fits (traffic
// never grows with a larger tile, so the largest feasible one is optimal), and all six block
// orders are priced. A few thousand closed-form evaluations per op shape; memoized by the
// cost model.
#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <utility>
#include <vector>

#include "mapping/buffer_mapping.h"

namespace trainsim {

/// Parts of the mapping a user pins (`trainsim layer --tile`, `--stationary`).
struct MappingConstraints {
  std::array<std::int64_t, kNumDims> tile{};  ///< 0: free
  int stationary = -1;                        ///< operand whose block is innermost; -1: free
  bool empty() const;
};

struct SearchResult {
  BufferMapping mapping;
  MappingCost cost;
};

/// Energy of a candidate, for choosing among mappings with equal DRAM traffic.
using MappingEnergy = std::function<double(const BufferMapping&, const MappingCost&)>;

/// The best mapping, or UserError naming the op and the buffer level when even the smallest
/// tiles do not fit (or no mapping satisfies the constraints). `granule[d]`: tiles of d
/// smaller than its extent are multiples of it (Dataflow::tile_granules).
SearchResult search_mapping(const NestProblem& p, const OperandResidency& res,
                            const BufferCapacity& cap, const AcceleratorSpec& acc,
                            const std::array<std::int64_t, kNumDims>& granule,
                            const MappingConstraints& pinned, const MappingEnergy& energy);

/// Each tile shape of a mapping and how many tiles have it (tiles differ only in the ragged
/// last tile of a dimension, and, for a stride-dilated kernel, in its stored positions).
std::vector<std::pair<TileBox, std::int64_t>> tile_classes(const NestProblem& p,
                                                           const BufferMapping& m);

/// Candidate tile sizes of a dimension of `extent`, largest first: the smallest tile of each
/// trip count considered, rounded up to a multiple of `granule`; ends with min(extent,
/// granule).
std::vector<std::int64_t> tile_candidates(std::int64_t extent, std::int64_t granule);

}  // namespace trainsim
