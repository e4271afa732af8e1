// conv2d_transpose: a transposed ("fractionally strided") convolution, the generator layer
// of DCGAN. It is the backward-data pass of a convolution mirrored against it: the
// convolution that maps this layer's output shape (filters x H' x W') to its input shape (C x
// H x W) with the same kernel, stride and padding. So it lowers onto the existing conv ops
// with the passes exchanged, and every dataflow times it as it already times that
// convolution (TensorFlow implements it the same way: its forward op is
// Conv2DBackpropInput):
//   forward          = the mirrored conv's backward-data  (x plays dY, y plays dX)
//   backward-data    = the mirrored conv's forward         (dy plays X, dx plays Y)
//   backward-weight  = the mirrored conv's backward-weight with x and dy exchanged
// An op's role names the pass it computes, so the forward op carries the role bwd-data.
#include "sim/workload/layers/layer_kinds.h"
#include "sim/workload/size_limits.h"

namespace trainsim {

namespace {

// Output extent along one axis: (in - 1) stride - 2 pad + kernel + output_padding.
std::int64_t transposed_extent(int in, int kernel, int stride, int pad, int output_padding) {
  return (std::int64_t{in} - 1) * stride - 2 * std::int64_t{pad} + kernel + output_padding;
}

std::string infer(const LayerSpec& s, const std::vector<Shape>& ins, Shape& out,
                  std::int64_t& params) {
  const Shape& in = ins.front();
  if (s.padding != s.padding_width())
    return "padding [" + std::to_string(s.padding) + ", " + std::to_string(s.padding_width()) +
           "] must be the same on both axes";
  if (s.output_padding >= s.stride)
    return "output_padding " + std::to_string(s.output_padding) +
           " must be smaller than the stride " + std::to_string(s.stride);
  const std::int64_t h = transposed_extent(in.h, s.kernel, s.stride, s.padding, s.output_padding);
  const std::int64_t w =
      transposed_extent(in.w, s.kernel_width(), s.stride, s.padding, s.output_padding);
  if (h < 1 || w < 1)
    return "padding " + std::to_string(s.padding) + " leaves no output of input " + in.str();
  if (h > kMaxSampleValues || w > kMaxSampleValues)
    return "the output " + std::to_string(h) + " x " + std::to_string(w) + " is too large";
  out = Shape{s.filters, static_cast<int>(h), static_cast<int>(w)};
  params =
      saturating_product({in.c, s.filters, s.kernel, s.kernel_width()}) + (s.bias ? s.filters : 0);
  return "";
}

// The mirrored convolution: from this layer's output shape back to its input shape.
ConvShape mirrored(const LayerLowering& l) {
  const LayerSpec& s = l.spec;
  ConvShape c;
  c.batch = l.batch;
  c.channels = l.shape.out.c, c.height = l.shape.out.h, c.width = l.shape.out.w;
  c.filters = l.shape.in.c, c.kernel_h = s.kernel, c.kernel_w = s.kernel_width();
  c.stride = s.stride, c.pad = s.padding;
  return c;
}

std::int64_t work(const LayerSpec& s, const std::vector<Shape>& ins, const Shape& out) {
  // The mirrored convolution's bound (conv2d.cpp's work): padded map x kernel x channels.
  return saturating_product({std::int64_t{out.h} + 2 * s.padding,
                             std::int64_t{out.w} + 2 * s.padding, s.kernel, s.kernel_width(), out.c,
                             ins.front().c});
}

void lower(const LayerLowering& l, LayerOps& ops) {
  const ConvShape c = mirrored(l);
  ops.forward = with_tensors(l.conv(c, OpRole::kBackwardData), {l.x, l.w}, {l.y});
  ops.backward_data = with_tensors(l.conv(c, OpRole::kForward), {l.dy, l.w}, {l.dx});
  // The mirrored conv's dW = X (*) dY, its X being this layer's dy and its dY this layer's x.
  ops.backward_weight = with_tensors(l.conv(c, OpRole::kBackwardWeight), {l.dy, l.x}, {l.dw});
}

}  // namespace

const LayerKind kConv2dTransposeKind{&infer, &work, &lower};

}  // namespace trainsim
