#include "sim/workload/lowering.h"

#include <algorithm>

namespace trainsim {

namespace {

Op eltwise(std::int64_t elements, int reads, int writes, int flops, OpRole role, int layer,
           int word_bits) {
  Op op = Op::make_eltwise({elements, reads, writes, flops}, role, layer);
  op.word_bits = word_bits;
  return op;
}

Op with_bits(Op op, int word_bits) {
  op.word_bits = word_bits;
  return op;
}

}  // namespace

ElementwiseShape update_shape(std::int64_t params, const OptimizerSpec& o) {
  ElementwiseShape e;
  e.elements = params;
  // Shared pre-processing (Optimizer::prepare_gradient): scale for mean, decay, clip.
  int pre = (o.reduction == "mean" ? 1 : 0) + (o.weight_decay > 0 ? 2 : 0) + (o.clip > 0 ? 1 : 0);
  if (o.kind == "adam") {
    e.reads = 4;         // w, g, m, v
    e.writes = 3;        // w, m, v
    e.flops = pre + 10;  // two moment updates, sqrt, divide, scale, subtract
  } else if (o.momentum > 0) {
    e.reads = 3;   // w, g, v
    e.writes = 2;  // w, v
    e.flops = pre + 4;
  } else {
    e.reads = 2;  // w, g
    e.writes = 1;
    e.flops = pre + 2;  // lr * g, subtract
  }
  return e;
}

PredictorOps lower_predictor(int layer, int samples, int in_h, int in_w, int batch, int size,
                             int channels, int outputs, int max_outputs, int word_bits,
                             bool resident_weights) {
  PredictorOps p;
  const std::int64_t n = samples, s2 = static_cast<std::int64_t>(size) * size;
  const std::int64_t hidden = channels * s2;
  auto bits = [&](Op op) {
    op.word_bits = word_bits;
    op.resident_filter = resident_weights && op.kind != OpKind::kElementwise;
    return op;
  };
  // Average over the batch, then pool / replicate to size x size: vector-unit work.
  // In 64 bits: size^2 alone may exceed int (a predictor size of 65536 made it 0).
  const std::int64_t hw = std::int64_t{in_h} * in_w;
  const int window = static_cast<int>(std::max<std::int64_t>(1, (hw + s2 - 1) / s2));
  p.forward.push_back(
      bits(eltwise(n * in_h * in_w, batch, 1, batch, OpRole::kPredictorForward, layer, word_bits)));
  p.forward.push_back(
      bits(eltwise(n * s2, window, 1, window, OpRole::kPredictorForward, layer, word_bits)));
  ConvShape c;
  c.batch = n, c.channels = 1, c.height = c.width = size, c.filters = channels;
  c.kernel_h = c.kernel_w = 3, c.pad = 1;
  p.forward.push_back(bits(Op::make_conv(c, OpRole::kPredictorForward, layer)));
  p.forward.push_back(
      bits(eltwise(n * hidden, 1, 1, 1, OpRole::kPredictorForward, layer, word_bits)));
  p.forward.push_back(bits(Op::make_gemm({n, outputs, hidden}, OpRole::kPredictorForward, layer)));
  // Training on the true gradients: MSE gradient, dense backward, relu, conv backward-weight
  // (the predictor's input needs no gradient).
  p.backward.push_back(
      bits(eltwise(n * outputs, 2, 1, 2, OpRole::kPredictorBackward, layer, word_bits)));
  p.backward.push_back(
      bits(Op::make_gemm({hidden, outputs, n}, OpRole::kPredictorBackward, layer)));
  p.backward.push_back(
      bits(Op::make_gemm({n, hidden, outputs}, OpRole::kPredictorBackward, layer)));
  p.backward.push_back(
      bits(eltwise(n * hidden, 2, 1, 1, OpRole::kPredictorBackward, layer, word_bits)));
  Op conv_bw = Op::make_conv(c, OpRole::kPredictorBackward, layer);
  // A conv op's role selects the pass it lowers to; keep that pass (backward-weight) while
  // attributing the op to the predictor's training.
  p.backward.push_back(bits(conv_bw));
  const std::int64_t params =
      static_cast<std::int64_t>(channels) * 9 + channels + hidden * max_outputs + max_outputs;
  OptimizerSpec adam;
  adam.kind = "adam";
  adam.reduction = "mean";
  Op update = Op::make_eltwise(update_shape(params, adam), OpRole::kPredictorUpdate, layer);
  update.word_bits = word_bits;
  update.eltwise.dram = !resident_weights;
  p.update.push_back(update);
  return p;
}

std::vector<LayerOps> lower_network(const NetShape& net, int batch, int word_bits,
                                    const OptimizerSpec& optimizer) {
  std::vector<LayerOps> out(net.size());
  const std::int64_t b = batch;
  for (std::size_t i = 0; i < net.size(); ++i) {
    const LayerSpec& ls = net.layer_spec(i);
    const LayerShape& shape = net.layer(i);
    const Shape in = shape.in, o = shape.out;
    const int id = static_cast<int>(i);
    LayerOps& ops = out[i];
    auto elt = [&](std::int64_t elements, int reads, int writes, int flops, OpRole role) {
      return eltwise(elements, reads, writes, flops, role, id, word_bits);
    };
    if (ls.type == "dense") {
      const std::int64_t fin = in.size(), fout = o.size();
      ops.forward = with_bits(Op::make_gemm({b, fout, fin}, OpRole::kForward, id), word_bits);
      ops.backward_data =
          with_bits(Op::make_gemm({b, fin, fout}, OpRole::kBackwardData, id), word_bits);
      ops.backward_weight =
          with_bits(Op::make_gemm({fin, fout, b}, OpRole::kBackwardWeight, id), word_bits);
    } else if (ls.type == "conv2d") {
      ConvShape c;
      c.batch = b, c.channels = in.c / ls.groups, c.height = in.h, c.width = in.w;
      c.filters = ls.filters / ls.groups, c.kernel_h = ls.kernel, c.kernel_w = ls.kernel_width();
      c.stride = ls.stride, c.pad = ls.padding;
      if (ls.padding != ls.padding_width()) {
        c.height += 2 * ls.padding, c.width += 2 * ls.padding_width(), c.pad = 0;
      }
      auto conv = [&](OpRole role) {
        Op op = with_bits(Op::make_conv(c, role, id), word_bits);
        op.repeat = ls.groups;
        return op;
      };
      ops.forward = conv(OpRole::kForward);
      ops.backward_data = conv(OpRole::kBackwardData);
      ops.backward_weight = conv(OpRole::kBackwardWeight);
    } else if (ls.type == "relu" || ls.type == "leaky_relu") {
      ops.forward = elt(b * o.size(), 1, 1, 1, OpRole::kForward);
      ops.backward_data = elt(b * in.size(), 2, 1, 1, OpRole::kActivationGrad);
    } else if (ls.type == "maxpool2d" || ls.type == "avgpool2d" || ls.type == "global_avgpool") {
      const int window = ls.type == "global_avgpool" ? in.h * in.w : ls.kernel * ls.kernel_width();
      ops.forward = elt(b * o.size(), window, 1, window, OpRole::kForward);
      // dx: every input position reads x (to find the max) or nothing extra (avg) and the
      // routed dy, and is written once.
      ops.backward_data = elt(b * in.size(), 2, 1, 1, OpRole::kActivationGrad);
    } else if (ls.type == "softmax") {
      ops.forward = elt(b * o.size(), 1, 1, 3, OpRole::kForward);
      ops.loss_grad = elt(b * o.size(), 1, 1, 1, OpRole::kActivationGrad);
    } else if (ls.type == "batchnorm") {
      // Forward: mean and variance (2 flops per value), then normalize, scale and shift (4).
      ops.forward = elt(b * o.size(), 2, 1, 6, OpRole::kForward);
      ops.backward_data = elt(b * in.size(), 3, 1, 8, OpRole::kActivationGrad);
      ops.backward_weight = elt(b * in.size(), 2, 0, 4, OpRole::kBackwardWeight);
    } else if (ls.type == "add") {
      const int n = static_cast<int>(shape.inputs.size());
      ops.forward = elt(b * o.size(), n, 1, n - 1, OpRole::kForward);
    } else if (ls.type == "resize") {
      ops.forward = elt(b * o.size(), 4, 1, 7, OpRole::kForward);
    }
    // flatten, concat: nothing to move or compute.
    if (shape.consumers > 1)
      ops.grad_sum = elt(b * o.size() * (shape.consumers - 1), 2, 1, 1, OpRole::kActivationGrad);
    if (shape.params > 0) {
      ops.update = Op::make_eltwise(update_shape(shape.params, optimizer), OpRole::kUpdate, id);
      ops.update->word_bits = word_bits;
    }
  }
  return out;
}

}  // namespace trainsim
