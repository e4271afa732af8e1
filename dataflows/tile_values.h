#pragma once
// A tile as the array sees it: the op it executes, and (cycle fidelity) its operand values cut
// from the whole op's, its result added back into the whole op's. Because the tiles of a
// mapping partition the op's iteration space, the accumulated result equals the whole op's
// reference result exactly (tested on every dataflow).
#include <cstdint>
#include <vector>

#include "dataflows/dataflow.h"
#include "mapping/problem.h"

namespace trainsim {

/// The op the array executes for `box`: for gemm-based dataflows the GEMM of its im2col;
/// otherwise its convolution, on the input window with the padding filled in (pad 0), or,
/// when the tile spans the whole window, the lowered convolution with its own padding. The
/// whole op as a tile costs exactly what the op costs.
Op tile_op(const NestProblem& p, const TileBox& box);

/// The GEMM of tile_op for a gemm-based dataflow (its im2col: stored kernel positions only).
GemmShape tile_gemm(const NestProblem& p, const TileBox& box);

/// The convolution of tile_op for a convolution-based dataflow (p not gemm_based).
ConvShape tile_conv(const NestProblem& p, const TileBox& box);

/// The tile's operand values, cut from the whole op's (layout as Dataflow::gemm_based).
OperandValues tile_operands(const NestProblem& p, const TileBox& box, const OperandValues& whole);

/// Adds the tile's result into `whole` (sized result_size(p)).
void accumulate_tile(const NestProblem& p, const TileBox& box, const std::vector<double>& tile,
                     std::vector<double>& whole);

/// Elements of the whole op's result.
std::int64_t result_size(const NestProblem& p);

}  // namespace trainsim
