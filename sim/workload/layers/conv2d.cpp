// conv2d: a convolution of `filters` filters of kernel x kernel_width over the input, with
// stride, padding and groups (each group of input channels convolved with its share of the
// filters; depthwise when groups = channels). One convolution op per pass, repeated per group.
#include "sim/workload/layers/layer_kinds.h"
#include "sim/workload/size_limits.h"

namespace trainsim {

namespace {

std::string infer(const LayerSpec& s, const std::vector<Shape>& ins, Shape& out,
                  std::int64_t& params) {
  const Shape& in = ins.front();
  if (s.groups < 1 || in.c % s.groups != 0 || s.filters % s.groups != 0)
    return "groups " + std::to_string(s.groups) + " must divide the input channels (" +
           std::to_string(in.c) + ") and the filters (" + std::to_string(s.filters) + ")";
  std::string err;
  const int h = window_extent(in.h, s.padding, s.kernel, s.stride, "height", err);
  const int w = window_extent(in.w, s.padding_width(), s.kernel_width(), s.stride, "width", err);
  if (!err.empty()) return err;
  out = Shape{s.filters, h, w};
  // Fan-in <= 2^30 x 2^24 (volume limit, kernel range): only the product may overflow.
  const std::int64_t fan_in =
      std::int64_t{in.c / s.groups} * s.kernel * s.kernel_width() + (s.bias ? 1 : 0);
  params = saturating_product({s.filters, fan_in});
  return "";
}

// Every filter tap at every padded input position: a bound on the MACs of any pass.
std::int64_t work(const LayerSpec& s, const std::vector<Shape>& ins, const Shape&) {
  const Shape& in = ins.front();
  const std::int64_t hp = std::int64_t{in.h} + 2 * std::int64_t{s.padding};
  const std::int64_t wp = std::int64_t{in.w} + 2 * std::int64_t{s.padding_width()};
  const std::int64_t channels = s.groups > 0 ? in.c / s.groups : in.c;
  return saturating_product({hp, wp, s.kernel, s.kernel_width(), channels, s.filters});
}

void lower(const LayerLowering& l, LayerOps& ops) {
  const LayerSpec& s = l.spec;
  const Shape& in = l.shape.in;
  ConvShape c;
  c.batch = l.batch, c.channels = in.c / s.groups, c.height = in.h, c.width = in.w;
  c.filters = s.filters / s.groups, c.kernel_h = s.kernel, c.kernel_w = s.kernel_width();
  c.stride = s.stride, c.pad = s.padding;
  if (s.padding != s.padding_width()) {  // ConvShape pads both axes alike: pad explicitly
    c.height += 2 * s.padding, c.width += 2 * s.padding_width(), c.pad = 0;
  }
  auto conv = [&](OpRole role) {
    Op op = l.conv(c, role);
    op.repeat = s.groups;
    return op;
  };
  // Weight gradients: X (*) dY, the input as the ifmap and dY as the filter operand.
  ops.forward = with_tensors(conv(OpRole::kForward), {l.x, l.w}, {l.y});
  ops.backward_data = with_tensors(conv(OpRole::kBackwardData), {l.dy, l.w}, {l.dx});
  ops.backward_weight = with_tensors(conv(OpRole::kBackwardWeight), {l.x, l.dy}, {l.dw});
}

std::int64_t macs(const LayerSpec& s, const LayerShape& shape) {
  return shape.out.size() * (shape.in.c / s.groups) * s.kernel * s.kernel_width();
}

}  // namespace

const LayerKind kConv2dKind{&infer, &work, &lower, false, false, &macs};

}  // namespace trainsim
