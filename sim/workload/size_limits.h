#pragma once
// Per-sample limits on what one layer of a network may form, checked by NetShape for every
// layer, so that no count the lowering and the dataflows form of a batch leaves 64 bits.
//
// Each key of a network is bounded alone (sim/yaml/key_ranges.h); these limits bound the
// products of several keys, which only the inferred shapes know. With a batch of at most
// key_range::kBatch.max = 2^16 samples:
//   * a batch tensor has at most 2^30 x 2^16 = 2^46 values;
//   * an op (a GEMM, a convolution in any of its three passes and any dataflow's lowering of
//     it, im2col's B*H*W x R*S*C included; an element-wise op times its reads) has at most
//     2^36 x 2^16 = 2^52 MACs or word accesses, leaving 2^11 for the factors the cost
//     models multiply in (word widths up to 64 bits, refetches bounded by the MACs);
//   * ADA-GP's predictor for a layer forms at most (params + filters) x 2^24 (its hidden
//     layer) ~ 2^54 MACs.
// Real networks are far inside: VGG-16's largest layer at 224 x 224 does 2^31 MACs per
// sample, its largest tensor has 2^22 values and its largest layer 2^27 parameters.
#include <cstdint>
#include <initializer_list>
#include <string>

#include "sim/spec/shape.h"
#include "sim/spec/specs.h"

namespace trainsim {

/// Values of one sample's tensor (the network input and every layer's output). Also keeps a
/// flattened volume (a dense layer's fan-in) inside `int`.
inline constexpr std::int64_t kMaxSampleValues = std::int64_t{1} << 30;
/// Trainable parameters of one layer. Also keeps its fan-in plus bias, the outputs of
/// ADA-GP's predictor for it, inside `int`.
inline constexpr std::int64_t kMaxLayerParams = std::int64_t{1} << 30;
/// MACs of any pass of a layer for one sample, and values it moves per sample in its
/// element-wise ops (pooling windows, the inputs of an add, the gradients summed for a
/// layer read by several layers).
inline constexpr std::int64_t kMaxSampleWork = std::int64_t{1} << 36;

/// The product, or INT64_MAX if it does not fit (factors must be >= 0), so a chain of
/// multiplications can be compared with a limit without overflowing on the way.
std::int64_t saturating_product(std::initializer_list<std::int64_t> factors);

/// An empty string if a layer's output values, parameters and work are within the limits,
/// else which limit is exceeded and by what, for an error message.
std::string size_limit_violation(std::int64_t values, std::int64_t params, std::int64_t work);

}  // namespace trainsim
