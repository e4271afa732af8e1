#pragma once
// Reference results for checking the cycle model's numeric output, and deterministic
// operand values to feed it. Values are small integers stored as doubles, so every sum is
// exact and the check is equality, whatever order the array accumulates in.
#include <cstdint>
#include <vector>

#include "dataflows/dataflow.h"

namespace trainsim {

/// Operands of lower_to_gemm(op) (gemm_based) or lower_to_conv(op), integers in [-3, 3].
OperandValues make_operands(const Op& op, bool gemm_based, std::uint64_t seed);

/// C[M x N] = A[M x K] B[K x N], row-major.
std::vector<double> reference_gemm(const GemmShape& g, const std::vector<double>& a,
                                   const std::vector<double>& b);

/// Direct convolution with zero padding: input [B x C x H x W], weights [F x C x R x S]
/// -> [B x F x Ho x Wo].
std::vector<double> reference_conv(const ConvShape& c, const std::vector<double>& input,
                                   const std::vector<double>& weights);

/// The reference result of `op` for the layout a dataflow uses.
std::vector<double> reference_result(const Op& op, bool gemm_based, const OperandValues& v);

}  // namespace trainsim
