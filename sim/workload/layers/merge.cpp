// The layers that join several inputs (`from`): add sums inputs of one shape (a residual
// connection), one op reading them all; concat stacks inputs of one height x width along the
// channels and moves nothing (its readers read its inputs' tensors, and their gradients are
// slices of its own).
#include <algorithm>
#include <climits>

#include "sim/workload/layers/layer_kinds.h"
#include "sim/workload/size_limits.h"

namespace trainsim {

namespace {

std::string infer_add(const LayerSpec&, const std::vector<Shape>& ins, Shape& out, std::int64_t&) {
  const Shape& in = ins.front();
  for (const Shape& s : ins)
    if (s != in) return "inputs differ in shape: " + in.str() + " and " + s.str();
  out = in;
  return "";
}

std::int64_t work_add(const LayerSpec&, const std::vector<Shape>& ins, const Shape& out) {
  return saturating_product({out.c, out.h, out.w, static_cast<std::int64_t>(ins.size())});
}

void lower_add(const LayerLowering& l, LayerOps& ops) {
  const int n = static_cast<int>(l.shape.inputs.size());
  const std::int64_t values = l.batch * l.shape.out.size();
  Op add = l.eltwise(values, n, 1, n - 1, OpRole::kForward);
  for (int k = 0; k < n && k < kMaxOpInputs; ++k)
    add.inputs[static_cast<std::size_t>(k)] =
        use(TensorKind::kActivation, l.sources[static_cast<std::size_t>(k)], values);
  // More inputs than an op lists: the rest still stream from DRAM.
  if (n > kMaxOpInputs) add.inputs[kMaxOpInputs - 1].words *= n - kMaxOpInputs + 1;
  add.outputs[0] = l.y;
  ops.forward = add;
}

std::string infer_concat(const LayerSpec&, const std::vector<Shape>& ins, Shape& out,
                         std::int64_t&) {
  const Shape& in = ins.front();
  std::int64_t c = 0;
  for (const Shape& s : ins) {
    if (s.h != in.h || s.w != in.w)
      return "inputs differ in height x width: " + in.str() + " and " + s.str();
    c += s.c;
  }
  // Clamped: a sum beyond int is over the volume limit NetShape checks next.
  out = Shape{static_cast<int>(std::min<std::int64_t>(c, INT_MAX)), in.h, in.w};
  return "";
}

}  // namespace

const LayerKind kAddKind{&infer_add, &work_add, &lower_add};
const LayerKind kConcatKind{&infer_concat, nullptr, &lower_nothing};

}  // namespace trainsim
