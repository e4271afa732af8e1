// resize: bilinear resampling of each channel to size[0] x size[1]: every output value reads
// the four nearest input values and blends them (7 operations). Nothing flows back through
// it in the op stream: a resize sits on a network's input side.
#include "sim/workload/layers/layer_kinds.h"
#include "sim/workload/size_limits.h"

namespace trainsim {

namespace {

std::string infer(const LayerSpec& s, const std::vector<Shape>& ins, Shape& out, std::int64_t&) {
  out = Shape{ins.front().c, s.size[0], s.size[1]};
  return "";
}

std::int64_t work(const LayerSpec&, const std::vector<Shape>&, const Shape& out) {
  return saturating_product({out.c, out.h, out.w, 4});  // bilinear: 4 reads a value
}

void lower(const LayerLowering& l, LayerOps& ops) {
  ops.forward = with_tensors(l.eltwise(l.batch * l.shape.out.size(), 4, 1, 7, OpRole::kForward),
                             {l.x}, {l.y});
}

}  // namespace

const LayerKind kResizeKind{&infer, &work, &lower};

}  // namespace trainsim
