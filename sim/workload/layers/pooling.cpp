// Pooling: maxpool2d and avgpool2d slide a kernel x kernel_width window at a stride;
// global_avgpool averages each channel's whole plane. Forward reads the window for every
// output value; backward routes dy to the window (max: to the position of the maximum, found
// again from x; avg: to every position), writing each input position once.
#include "sim/workload/layers/layer_kinds.h"
#include "sim/workload/size_limits.h"

namespace trainsim {

namespace {

std::string infer_window(const LayerSpec& s, const std::vector<Shape>& ins, Shape& out,
                         std::int64_t&) {
  const Shape& in = ins.front();
  std::string err;
  const int h = window_extent(in.h, s.padding, s.kernel, s.stride, "height", err);
  const int w = window_extent(in.w, s.padding_width(), s.kernel_width(), s.stride, "width", err);
  if (!err.empty()) return err;
  out = Shape{in.c, h, w};
  return "";
}

std::string infer_global(const LayerSpec&, const std::vector<Shape>& ins, Shape& out,
                         std::int64_t&) {
  out = Shape{ins.front().c, 1, 1};
  return "";
}

std::int64_t work_window(const LayerSpec& s, const std::vector<Shape>&, const Shape& out) {
  return saturating_product({out.c, out.h, out.w, s.kernel, s.kernel_width()});
}

void lower_pool(const LayerLowering& l, int window, LayerOps& ops) {
  const std::int64_t outputs = l.batch * l.shape.out.size();
  // The window's re-reads hit the buffer: DRAM sees each input once.
  ops.forward = with_tensors(
      as_kernel(l.eltwise(outputs, window, 1, window, OpRole::kForward), EltwiseKernel::kPooling),
      {l.x}, {l.y});
  // dx: every input position reads x (to find the max) or nothing extra (avg) and the routed
  // dy, and is written once.
  ops.backward_data = with_tensors(
      as_kernel(l.eltwise(l.batch * l.shape.in.size(), 2, 1, 1, OpRole::kActivationGrad),
                EltwiseKernel::kPoolingGrad),
      {l.x, l.dy}, {l.dx});
}

void lower_window(const LayerLowering& l, LayerOps& ops) {
  lower_pool(l, l.spec.kernel * l.spec.kernel_width(), ops);
}

void lower_global(const LayerLowering& l, LayerOps& ops) {
  lower_pool(l, l.shape.in.h * l.shape.in.w, ops);
}

}  // namespace

const LayerKind kWindowPoolKind{&infer_window, &work_window, &lower_window};
const LayerKind kGlobalAvgPoolKind{&infer_global, nullptr, &lower_global};

}  // namespace trainsim
