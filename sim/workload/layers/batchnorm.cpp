// batchnorm: per channel, normalize by the batch's mean and variance, then scale and shift
// (two parameters a channel). Its ops are a normalization's (lower_normalization).
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

const LayerKind kBatchNormKind{&infer, nullptr, &lower_normalization};

}  // namespace trainsim
