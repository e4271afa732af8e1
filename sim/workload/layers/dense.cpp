// dense: Y[batch x units] = X[batch x C H W] W + b, the input flattened. One GEMM per pass
// (lower_dense_product) with M = the batch.
#include "sim/workload/layers/layer_kinds.h"
#include "sim/workload/size_limits.h"

namespace trainsim {

namespace {

std::string infer(const LayerSpec& s, const std::vector<Shape>& ins, Shape& out,
                  std::int64_t& params) {
  const Shape& in = ins.front();
  out = Shape{s.units, 1, 1};
  params = in.size() * s.units + (s.bias ? s.units : 0);
  return "";
}

std::int64_t work(const LayerSpec& s, const std::vector<Shape>& ins, const Shape&) {
  const Shape& in = ins.front();
  return saturating_product({in.c, in.h, in.w, s.units});
}

void lower(const LayerLowering& l, LayerOps& ops) {
  lower_dense_product(l, l.batch, l.shape.out.size(), l.shape.in.size(), ops);
}

std::int64_t macs(const LayerSpec& s, const LayerShape& shape) {
  return shape.in.size() * s.units;
}

}  // namespace

const LayerKind kDenseKind{&infer, &work, &lower, false, false, &macs};

}  // namespace trainsim
