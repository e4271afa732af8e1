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
                             int channels, int outputs, int word_bits, bool resident_weights) {
  PredictorOps p;
  const std::int64_t n = samples, s2 = static_cast<std::int64_t>(size) * size;
  const std::int64_t hidden = channels * s2;
  auto bits = [&](Op op) {
    op.word_bits = word_bits;
    op.resident_filter = resident_weights && op.kind != OpKind::kElementwise;
    return op;
  };
  // Average over the batch, then pool / replicate to size x size: vector-unit work.
  const int window = std::max(1, (in_h * in_w + static_cast<int>(s2) - 1) / static_cast<int>(s2));
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
      static_cast<std::int64_t>(channels) * 9 + channels + hidden * outputs + outputs;
  OptimizerSpec adam;
  adam.kind = "adam";
  adam.reduction = "mean";
  Op update = Op::make_eltwise(update_shape(params, adam), OpRole::kPredictorUpdate, layer);
  update.word_bits = word_bits;
  update.eltwise.dram = !resident_weights;
  p.update.push_back(update);
  return p;
}

std::vector<LayerOps> lower_network(Network<float>& net, int batch, int word_bits,
                                    const OptimizerSpec& optimizer) {
  std::vector<LayerOps> out(net.size());
  const std::int64_t b = batch;
  for (std::size_t i = 0; i < net.size(); ++i) {
    const LayerSpec& ls = net.layer_spec(i);
    Layer<float>& layer = net.layer(i);
    const Shape in = layer.in_shape(), o = layer.out_shape();
    const int id = static_cast<int>(i);
    LayerOps& ops = out[i];
    if (ls.type == "dense") {
      const std::int64_t fin = in.size(), fout = o.size();
      ops.forward = with_bits(Op::make_gemm({b, fout, fin}, OpRole::kForward, id), word_bits);
      ops.backward_data =
          with_bits(Op::make_gemm({b, fin, fout}, OpRole::kBackwardData, id), word_bits);
      ops.backward_weight =
          with_bits(Op::make_gemm({fin, fout, b}, OpRole::kBackwardWeight, id), word_bits);
    } else if (ls.type == "conv2d") {
      ConvShape c;
      c.batch = b, c.channels = in.c, c.height = in.h, c.width = in.w;
      c.filters = ls.filters, c.kernel_h = c.kernel_w = ls.kernel;
      c.stride = ls.stride, c.pad = ls.padding;
      ops.forward = with_bits(Op::make_conv(c, OpRole::kForward, id), word_bits);
      ops.backward_data = with_bits(Op::make_conv(c, OpRole::kBackwardData, id), word_bits);
      ops.backward_weight = with_bits(Op::make_conv(c, OpRole::kBackwardWeight, id), word_bits);
    } else if (ls.type == "relu" || ls.type == "leaky_relu") {
      ops.forward = eltwise(b * o.size(), 1, 1, 1, OpRole::kForward, id, word_bits);
      ops.backward_data = eltwise(b * in.size(), 2, 1, 1, OpRole::kActivationGrad, id, word_bits);
    } else if (ls.type == "maxpool2d" || ls.type == "avgpool2d") {
      const int window = ls.kernel * ls.kernel;
      ops.forward = eltwise(b * o.size(), window, 1, window, OpRole::kForward, id, word_bits);
      // dx: every input position reads x (to find the max) or nothing extra (avg) and the
      // routed dy, and is written once.
      ops.backward_data = eltwise(b * in.size(), 2, 1, 1, OpRole::kActivationGrad, id, word_bits);
    } else if (ls.type == "softmax") {
      ops.forward = eltwise(b * o.size(), 1, 1, 3, OpRole::kForward, id, word_bits);
      ops.loss_grad = eltwise(b * o.size(), 1, 1, 1, OpRole::kActivationGrad, id, word_bits);
    }
    // flatten: nothing to move or compute.
    std::int64_t params = 0;
    for (Param<float>* p : layer.params()) params += static_cast<std::int64_t>(p->value.size());
    if (params > 0) {
      ops.update = Op::make_eltwise(update_shape(params, optimizer), OpRole::kUpdate, id);
      ops.update->word_bits = word_bits;
    }
  }
  return out;
}

}  // namespace trainsim
