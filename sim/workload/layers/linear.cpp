// linear: a dense layer applied at every position of a sequence (C x H x W read as H x W
// positions of C features): Y[positions x units] = X[positions x C] W + b, the same weights
// at every position (BERT's projections and feed-forward layers, its span head). One GEMM
// per pass over the whole batch's positions: M = batch x H x W.
#include "sim/workload/layers/layer_kinds.h"
#include "sim/workload/size_limits.h"

namespace trainsim {

namespace {

std::string infer(const LayerSpec& s, const std::vector<Shape>& ins, Shape& out,
                  std::int64_t& params) {
  const Shape& in = ins.front();
  out = Shape{s.units, in.h, in.w};
  params = saturating_product({in.c, s.units}) + (s.bias ? s.units : 0);
  return "";
}

std::int64_t work(const LayerSpec& s, const std::vector<Shape>& ins, const Shape&) {
  const Shape& in = ins.front();
  return saturating_product({in.c, in.h, in.w, s.units});
}

void lower(const LayerLowering& l, LayerOps& ops) {
  const Shape& in = l.shape.in;
  lower_dense_product(l, l.batch * in.h * in.w, l.spec.units, in.c, ops);
}

}  // namespace

const LayerKind kLinearKind{&infer, &work, &lower};

}  // namespace trainsim
