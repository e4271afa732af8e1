#pragma once
// A buffer mapping as a plain value (tile sizes and a loop order, as nn_dataflow's loop
// blocking scheme), and its closed-form cost: DRAM traffic per operand, buffer occupancy,
// tiles. The search enumerates mappings and keeps the cheapest; the tile walk executes one.
//
// Loop nest. The seven tile loops run in three blocks, one per operand o: the loops of the
// dimensions irrelevant to o (K for the ifmap; N, P, Q for the filter; C, R, S for the
// ofmap). `order` lists the blocks from outermost to innermost. With T_d = ceil(D / t_d)
// iterations per loop and P_o the product of T_d over o's block:
//   an operand's tile stays in the buffer while only its irrelevant loops iterate, so it is
//   fetched once per tile (sum of its tile footprints, halos included) times P_o if its
//   block runs outside a relevant block with more than one iteration, else once;
//   the ofmap likewise: with the reduction block outside, each output tile is visited P_o
//   times, its partial sums written to DRAM each time and read back all but the first
//   (spills); with the reduction block inside they accumulate in the buffer and the final
//   outputs are written once.
// Capacity: an operand whose tile changes during the op takes two tiles (the DMA fills one
// while the array works on the other; buffer.double_buffer); a tensor kept whole takes its
// whole footprint. Shared buffers hold the sum, partitioned ones each operand in its own.
#include <array>
#include <cstdint>
#include <string>

#include "mapping/problem.h"
#include "sim/spec/accel_spec.h"

namespace trainsim {

/// How the op uses the buffer for each operand, from its residency flags.
struct OperandResidency {
  enum Kind : std::uint8_t {
    kStream,    ///< tiled: fetched (or written) tile by tile
    kOnChip,    ///< input already whole in the buffer: no DRAM read
    kLoadKeep,  ///< input read once whole and kept for the next op
    kKeep,      ///< output kept whole in the buffer for the next op
  };
  std::array<Kind, kNumOperands> kind{kStream, kStream, kStream};
  bool write_out = true;  ///< the ofmap is written to DRAM
  /// Input 0 / 1 and output 0 of an array op are its ifmap, filter and ofmap.
  static OperandResidency of(const Op& op);
  bool whole(int o) const { return kind[o] != kStream; }
};

/// The buffer as the mapping sees it.
struct BufferCapacity {
  bool shared = false;
  std::int64_t total_words = 0;
  std::array<std::int64_t, kNumOperands> partition_words{};
  bool double_buffer = true;
  static BufferCapacity of(const AcceleratorSpec& acc);
  /// "the 108 KiB global buffer" or "buffer partition filter (27 KiB)".
  std::string level_name(int operand, const AcceleratorSpec& acc) const;
};

struct BufferMapping {
  std::array<std::int64_t, kNumDims> tile{};  ///< tile extent per dimension
  /// Blocks from outermost to innermost; entry o = the loops irrelevant to operand o. The
  /// innermost block's operand is the stationary one.
  std::array<int, kNumOperands> order{kIfmap, kFilter, kOfmap};
  bool operator==(const BufferMapping& o) const { return tile == o.tile && order == o.order; }
};

/// What the closed form says about a mapping.
struct MappingCost {
  std::array<std::int64_t, kNumDims> trips{};
  std::int64_t tiles = 0;
  std::array<std::int64_t, kNumOperands> tile_words{};  ///< largest tile of each operand
  std::array<std::int64_t, kNumOperands> need_words{};  ///< buffer words it occupies
  std::array<std::int64_t, kNumOperands> dram_read_words{}, dram_write_words{};
  /// Output words added onto a partial sum already in the buffer (read-modify-write):
  /// every reduction tile after the first.
  std::int64_t accumulate_words = 0;
  bool output_double_buffered = false;  ///< the ofmap has two slots (else one)
  bool fits = false;
  std::int64_t dram_words() const;
  /// Buffer accesses the memory level adds to the array's: DMA fills and drains and the
  /// accumulation reads.
  std::int64_t buffer_words() const;
};

/// Loop trip counts of a mapping: ceil(extent / tile) per dimension.
std::array<std::int64_t, kNumDims> trip_counts(const NestProblem& p, const BufferMapping& m);

/// Sum and maximum, over all tiles along one output axis (tile `t_out` of `n_out`
/// positions, stride `u`) and one kernel axis (tile `t_k` of `n_k`), of the stored input
/// positions a tile's window covers.
struct AxisSums {
  std::int64_t sum = 0, max = 0;
  std::int64_t min = 0;  ///< the smallest tile's (0 if some tile covers no stored position)
};
AxisSums window_sums(const RealAxis& in, std::int64_t n_out, std::int64_t t_out, std::int64_t u,
                     std::int64_t n_k, std::int64_t t_k);
/// The same for the kernel's own stored positions over the kernel tiles.
AxisSums kernel_sums(const RealAxis& k, std::int64_t n_k, std::int64_t t_k);

/// What the closed form needs besides the tile sizes, which the search computes once per
/// tile size rather than per candidate: window_sums() of the input's rows and columns,
/// kernel_sums() of the filter's, and the problem's total_words().
struct NestSums {
  AxisSums rows, cols, k_rows, k_cols;
  std::array<std::int64_t, kNumOperands> total{};
};
NestSums nest_sums(const NestProblem& p, const BufferMapping& m);

/// The closed-form cost, with `sums` = nest_sums(p, m) (possibly cached).
MappingCost analyze_mapping(const NestProblem& p, const BufferMapping& m,
                            const OperandResidency& res, const BufferCapacity& cap,
                            const NestSums& sums);
/// The same with `trips` = trip_counts(p, m) given: the search knows every candidate's trip
/// counts and prices hundreds of thousands of candidates per network.
MappingCost analyze_mapping(const NestProblem& p, const BufferMapping& m,
                            const std::array<std::int64_t, kNumDims>& trips,
                            const OperandResidency& res, const BufferCapacity& cap,
                            const NestSums& sums);
/// Whether the innermost block that iterates (of `m`'s order, with these trip counts) is the
/// output's, so that an output tile accumulates over consecutive tiles and needs one buffer
/// copy: the only way the block order changes whether a mapping fits (analyze_mapping).
bool output_accumulates(const BufferMapping& m, const std::array<std::int64_t, kNumDims>& trips);
/// The same from the block order and which blocks iterate (a block, named by the operand it
/// does not index, iterates if any of its loops does).
bool output_accumulates(const std::array<int, kNumOperands>& order,
                        const std::array<bool, kNumOperands>& iterates);
/// analyze_mapping(p, m, trips, res, cap, sums).fits, without the traffic: what the search's
/// bisection over K tiles asks for each (W, O) pair.
bool mapping_fits(const NestProblem& p, const BufferMapping& m,
                  const std::array<std::int64_t, kNumDims>& trips, const OperandResidency& res,
                  const BufferCapacity& cap, const NestSums& sums);
/// The same with whether the output tile accumulates in place given (`res.kind[kOfmap]` not
/// kKeep and output_accumulates): the search knows it per block order, and the order matters
/// to fitting only through it.
bool tile_fits(const NestProblem& p, const std::array<std::int64_t, kNumDims>& tile,
               const std::array<std::int64_t, kNumDims>& trips, bool accumulates,
               const OperandResidency& res, const BufferCapacity& cap, const NestSums& sums);
/// Words of each operand's largest tile (`tile` with the axis sums of its tile sizes).
std::array<std::int64_t, kNumOperands> largest_tile_words(
    const NestProblem& p, const std::array<std::int64_t, kNumDims>& tile, const NestSums& sums);
/// Which operands' tiles ever change (some loop over a dimension they depend on iterates): bit
/// o for operand o.
unsigned operand_changes(const std::array<std::int64_t, kNumDims>& trips);
/// tile_fits from its parts: the largest tiles' words (largest_tile_words) and which operands
/// change (operand_changes). The search's bisection over K tiles varies only the K tile, to
/// which the filter's and the output's words are proportional.
bool words_fit(const std::array<std::int64_t, kNumOperands>& tile_words, unsigned changes,
               bool accumulates, const std::array<std::int64_t, kNumOperands>& total,
               const OperandResidency& res, const BufferCapacity& cap);
/// analyze_mapping, computing the axis sums itself.
MappingCost analyze_mapping(const NestProblem& p, const BufferMapping& m,
                            const OperandResidency& res, const BufferCapacity& cap);

/// The loop nest as text, one loop per line, for `trainsim layer --mapping`.
std::string mapping_text(const NestProblem& p, const BufferMapping& m, const MappingCost& c,
                         const OperandResidency& res, int word_bytes);

/// The dimensions of each block, outermost first within the block (the tile walk's order).
/// Inline: the search asks for every candidate's loops.
inline const std::array<int, 3>& block_dims(int operand, int& count) {
  static constexpr std::array<int, 3> ifmap_block{kDimK, 0, 0}, filter_block{kDimN, kDimP, kDimQ},
      ofmap_block{kDimC, kDimR, kDimS};
  count = operand == kIfmap ? 1 : 3;
  return operand == kIfmap ? ifmap_block : operand == kFilter ? filter_block : ofmap_block;
}

}  // namespace trainsim
