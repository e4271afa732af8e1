// layernorm: normalization over the C features of each position, with a learned scale and
// shift per feature (BERT after each sublayer). It costs what batchnorm costs (the same
// statistics, normalization and gradients per value, over another axis), so it lowers to
// the same element-wise ops; the paper calls it Norm.
#include "sim/workload/layers/layer_kinds.h"

namespace trainsim {

namespace {

std::string infer(const LayerSpec&, const std::vector<Shape>& ins, Shape& out,
                  std::int64_t& params) {
  out = ins.front();
  params = 2 * std::int64_t{out.c};
  return "";
}

}  // namespace

const LayerKind kLayerNormKind{&infer, nullptr, &lower_normalization};

}  // namespace trainsim
