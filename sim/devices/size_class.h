#pragma once
// The input-size class of an op (small, medium, large): Hype-training keeps one FPGA kernel per
// op type and class (He et al., ICS 2021, Sec. 3.3) and profiles every op at one input per
// class (Table 1).
//
// The paper defines the classes for MatMul (M, K, N) only: small 256 < M, K, N < 1024; medium
// 1024 <= M, K, N < 4096; large "any dimension size larger than 4096". That leaves gaps (a
// dimension of exactly 4096, of 256 or less, or mixed ones such as M = 300, K = 2000), so
// trainsim closes them by the largest dimension: large if it is >= 4096, medium if >= 1024,
// else small. Convolutions are classed by the GEMM they lower to (im2col, lower_to_gemm), per
// repetition of a grouped one. Element-wise ops have no dimensions to compare; they are classed
// by their element count, small below 2^18 and large from 2^20 (trainsim's choice: the paper
// gives no rule).
#include <cstdint>
#include <string>

#include "sim/workload/op.h"

namespace trainsim {

enum class SizeClass : std::uint8_t { kSmall, kMedium, kLarge };
inline constexpr int kNumSizeClasses = 3;

const char* size_class_name(SizeClass c);  ///< "small", "medium", "large"
/// Parses size_class_name() output; false if unknown.
bool parse_size_class(const std::string& text, SizeClass& c);

inline constexpr std::int64_t kMediumDim = 1024, kLargeDim = 4096;
inline constexpr std::int64_t kMediumElements = std::int64_t{1} << 18;
inline constexpr std::int64_t kLargeElements = std::int64_t{1} << 20;

/// The class of a GEMM of these dimensions (the largest decides).
SizeClass gemm_size_class(const GemmShape& g);
/// The class of an element-wise op of `elements` values.
SizeClass elementwise_size_class(std::int64_t elements);
/// The class of `op`: its GEMM (convolutions lowered), or its element count.
SizeClass size_class(const Op& op);

}  // namespace trainsim
