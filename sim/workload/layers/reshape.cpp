// reshape: the input's values read as another C x H x W (DCGAN's projection of z to
// 1024 x 4 x 4). Like flatten it moves nothing: its output and gradient are its input's, so
// it issues no op and its readers read its producer's tensors.
#include "sim/workload/layers/layer_kinds.h"

namespace trainsim {

namespace {

std::string infer(const LayerSpec& s, const std::vector<Shape>& ins, Shape& out, std::int64_t&) {
  const Shape& in = ins.front();
  const Shape to{s.shape[0], s.shape[1], s.shape[2]};
  // Each extent is at most 2^20 (key_range::kExtent): the product fits in 64 bits.
  const std::int64_t values = std::int64_t{to.c} * to.h * to.w;
  if (values != in.size())
    return "shape " + to.str() + " has " + std::to_string(values) + " values, the input " +
           in.str() + " " + std::to_string(in.size());
  out = to;
  return "";
}

void lower(const LayerLowering&, LayerOps&) {}

}  // namespace

const LayerKind kReshapeKind{&infer, nullptr, &lower, /*alias=*/true};

}  // namespace trainsim
