// The normalizations, each with a learned scale and shift per channel: batchnorm normalizes
// each channel by the batch's mean and variance; layernorm normalizes the C features of each
// position (BERT after each sublayer; the paper calls it Norm). The axis the statistics run
// over does not change the work, so both lower to the same element-wise ops
// (lower_normalization).
#include "sim/workload/layers/layer_kinds.h"

namespace trainsim {

const LayerKind kBatchNormKind{&infer_normalization, nullptr, &lower_normalization};
const LayerKind kLayerNormKind{&infer_normalization, nullptr, &lower_normalization};

}  // namespace trainsim
