// flatten: C x H x W read as C H W x 1 x 1. Like reshape it moves nothing: its output and
// gradient are its input's, so it issues no op and its readers read its producer's tensors.
#include "sim/workload/layers/layer_kinds.h"

namespace trainsim {

namespace {

std::string infer(const LayerSpec&, const std::vector<Shape>& ins, Shape& out, std::int64_t&) {
  out = Shape{static_cast<int>(ins.front().size()), 1, 1};
  return "";
}

}  // namespace

const LayerKind kFlattenKind{&infer, nullptr, &lower_nothing, /*alias=*/true};

}  // namespace trainsim
