#pragma once
// One array op seen from the global buffer: the seven loop dimensions of the convolution the
// dataflow executes (lower_to_conv(op); a GEMM C[MxN] = A[MxK] B[KxN] is the 1x1
// convolution with P = M, K = N, C = K), which positions of its operands hold stored data
// (padding and the zeros a strided backward pass dilates its operands with are never read
// from DRAM), and the footprint of a tile of each operand.
//
// Names follow Timeloop: N batch, K output channels (filters), C input channels, P / Q
// output rows / columns, R / S kernel rows / columns. Every dimension indexes exactly two of
// the three operands:
//   ifmap  X[n][c][p*U + r][q*U + s]   (N, C, P, Q, R, S)   K is irrelevant to it
//   filter W[k][c][r][s]               (K, C, R, S)         N, P, Q are irrelevant
//   ofmap  Y[n][k][p][q]               (N, K, P, Q)         C, R, S (the reduction) are
// which is what makes a loop order matter: the loops irrelevant to an operand re-fetch it
// unless they run inside its innermost relevant loop.
#include <array>
#include <cstdint>
#include <string>

#include "sim/spec/op_stats.h"
#include "sim/workload/op.h"

namespace trainsim {

enum Dim : int { kDimN = 0, kDimK, kDimC, kDimP, kDimQ, kDimR, kDimS };
inline constexpr int kNumDims = 7;

/// "N", "K", "C", "P", "Q", "R", "S" (conv ops) or the GEMM's "M", "N", "K" for P, K, C
/// ("" for the dimensions a GEMM does not have).
const char* dim_name(int dim, bool gemm);
/// The operand a dimension does not index: K -> ifmap, N/P/Q -> filter, C/R/S -> ofmap.
inline int irrelevant_operand(int dim) {
  return dim == kDimK ? 0 : dim == kDimN || dim == kDimP || dim == kDimQ ? 1 : 2;
}

/// Stored positions along one axis of an operand: `count` of them, the first at `offset`,
/// `step` apart (a stride-dilated axis has step > 1); everything else on the axis is
/// padding or dilation zeros.
struct RealAxis {
  std::int64_t offset = 0, step = 1, count = 0;
  /// Stored positions in [lo, lo + len).
  std::int64_t real_in(std::int64_t lo, std::int64_t len) const;
};

/// Stored positions of `axis` that the windows of outputs [out0, out0 + n_out) read with
/// kernel positions [k0, k0 + n_k) at `stride`.
std::int64_t touched_positions(const RealAxis& axis, std::int64_t out0, std::int64_t n_out,
                               std::int64_t stride, std::int64_t k0, std::int64_t n_k);

/// The three blocks of dimensions a tiling's compute floor factors over (Dataflow::
/// compute_floor_factor): the batch and output pixels (N, P, Q: a GEMM-based tile's rows M),
/// the reduction (C, R, S: its depth K) and the filters (K: its columns N).
enum class TileBlock : int { kPixels = 0, kReduction = 1, kFilters = 2 };

/// One distinct tile of a block and how many tiles of a tiling have it (block_tiles in
/// mapping/search.h).
struct BlockTile {
  std::array<std::int64_t, 3> extent{};  ///< N, P, Q; C, R, S; or K, 1, 1
  /// The positions it holds: the extents' product, with only the stored kernel positions
  /// counted (C x stored R x stored S: a GEMM-based tile's depth).
  std::int64_t stored = 0;
  std::int64_t count = 0;
};

/// A tile: the origin and extent of each dimension.
struct TileBox {
  std::array<std::int64_t, kNumDims> origin{}, extent{};
};

struct NestProblem {
  Op op;                    ///< the op itself, one repetition (repeat = 1)
  bool gemm = false;        ///< the op is a GEMM (dimension names M, N, K)
  bool gemm_based = false;  ///< tiles run as GEMMs (systolic dataflows), else as convolutions
  ConvShape conv;           ///< lower_to_conv(op): the convolution whose loops these are
  std::array<std::int64_t, kNumDims> extent{};
  std::int64_t stride = 1;
  RealAxis in_rows, in_cols;  ///< ifmap rows / columns in window coordinates p*U + r
  RealAxis k_rows, k_cols;    ///< filter rows / columns
  /// The filter lives in a dedicated memory (op.resident_filter): never in DRAM or the buffer.
  bool filter_elsewhere = false;

  /// Stored kernel rows / columns of a tile (the kernel is dense unless stride-dilated).
  std::int64_t stored_kernel_rows(const TileBox& b) const {
    return k_rows.step == 1 ? b.extent[kDimR] : k_rows.real_in(b.origin[kDimR], b.extent[kDimR]);
  }
  std::int64_t stored_kernel_cols(const TileBox& b) const {
    return k_cols.step == 1 ? b.extent[kDimS] : k_cols.real_in(b.origin[kDimS], b.extent[kDimS]);
  }
  /// Words of operand `o` in the tile `box` (stored positions only).
  std::int64_t tile_words(int o, const TileBox& box) const;
  /// Words of each operand the whole op touches: what it must read at least once and write
  /// once (the "compulsory" traffic of any mapping).
  std::array<std::int64_t, kNumOperands> total_words() const;
  /// The whole op as one tile.
  TileBox whole() const;
  /// "conv fw 16x3x227x227 ..." plus, for a backward pass, what it was lowered to.
  std::string describe() const;
};

/// The buffer-level problem of an array op (GEMM or conv; throws std::invalid_argument for
/// element-wise ops) as a dataflow executes it: `gemm_based` dataflows run each tile as the
/// GEMM of its im2col (lower_to_gemm's convention), the others as a convolution
/// (lower_to_conv's). The two differ only for a strided backward-weight pass whose stride
/// does not divide the input: the GEMM computes the R x S weight gradient, the lowered
/// convolution a row or column more.
NestProblem make_problem(const Op& op, bool gemm_based);

}  // namespace trainsim
