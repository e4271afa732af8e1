// The ends of a network cut out of a larger graph: a source is a tensor from outside (its
// shape its own; NetShape reads it from the layer, as the type's boundary role says), a sink
// hands its input on to the outside, whose gradient comes back. Neither computes anything.
#include "sim/workload/layers/layer_kinds.h"

namespace trainsim {

namespace {

std::string infer_source(const LayerSpec& s, const std::vector<Shape>&, Shape& out, std::int64_t&) {
  out = Shape{s.shape[0], s.shape[1], s.shape[2]};
  return "";
}

}  // namespace

const LayerKind kSourceKind{&infer_source, nullptr, &lower_nothing};
const LayerKind kSinkKind{&infer_same_shape, nullptr, &lower_nothing};

}  // namespace trainsim
