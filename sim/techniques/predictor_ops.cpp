#include "sim/techniques/predictor_ops.h"

#include <algorithm>

#include "sim/techniques/adagp_schedule.h"
#include "sim/workload/layer_kind.h"
#include "sim/workload/lowering.h"

namespace trainsim {

namespace {

// Phase GP predicts during the forward pass; Phase BP trains the predictor on the batch's
// true gradients after the backward pass, and every phase updates it with the layers.
OpRole predict_pass(int batch_kind) {
  return batch_kind == AdagpSchedule::kPhaseGp ? OpRole::kForward : OpRole::kUpdate;
}
OpRole train_pass(int) {
  return OpRole::kUpdate;
}

}  // namespace

const TechniqueRole kPredictorRoles[3] = {
    {"pred-fw", OpRole::kForward, predict_pass},
    // A conv op's role selects the pass it lowers to: the predictor's training computes its
    // conv's backward-weight pass.
    {"pred-bw", OpRole::kBackwardWeight, train_pass},
    {"pred-update", OpRole::kForward, train_pass},
};

std::int64_t predictor_params(int size, int channels, int max_outputs) {
  const std::int64_t hidden = channels * (static_cast<std::int64_t>(size) * size);
  return static_cast<std::int64_t>(channels) * 9 + channels + hidden * max_outputs + max_outputs;
}

PredictorOps lower_predictor(int layer, int samples, int in_h, int in_w, int batch, int size,
                             int channels, int outputs, int max_outputs, int word_bits,
                             bool resident_weights) {
  PredictorOps p;
  static const OpRole fw = technique_role("pred-fw"), bw = technique_role("pred-bw"),
                      upd = technique_role("pred-update");
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
  // Its intermediates, stage by stage, so that consecutive predictor ops can keep them on
  // chip; its weights (conv, dense) are shared by every layer's prediction.
  auto stage = [&](int k, std::int64_t words) {
    return use(TensorKind::kOwnModel, layer, words, k);
  };
  const std::int64_t conv_w = std::int64_t{channels} * 9, dense_w = hidden * outputs;
  const TensorUse w_conv = use(TensorKind::kOwnModel, -1, conv_w, 0);
  const TensorUse w_dense = use(TensorKind::kOwnModel, -1, dense_w, 1);
  const TensorUse avg = stage(0, n * in_h * in_w), resized = stage(1, n * s2),
                  conv_out = stage(2, n * hidden), act = stage(3, n * hidden),
                  pred = stage(4, n * outputs), d_pred = stage(5, n * outputs),
                  d_act = stage(6, n * hidden), d_conv = stage(7, n * hidden);
  // It reads the layer's output maps (the batch's), which the layer has just written.
  p.forward.push_back(
      with_tensors(bits(as_kernel(eltwise(n * in_h * in_w, batch, 1, batch, fw, layer, word_bits),
                                  EltwiseKernel::kReduction)),
                   {use(TensorKind::kActivation, layer, n * in_h * in_w * batch)}, {avg}));
  p.forward.push_back(
      with_tensors(bits(as_kernel(eltwise(n * s2, window, 1, window, fw, layer, word_bits),
                                  EltwiseKernel::kPooling)),
                   {avg}, {resized}));
  ConvShape c;
  c.batch = n, c.channels = 1, c.height = c.width = size, c.filters = channels;
  c.kernel_h = c.kernel_w = 3, c.pad = 1;
  p.forward.push_back(
      with_tensors(bits(Op::make_conv(c, fw, layer)), {resized, w_conv}, {conv_out}));
  p.forward.push_back(
      with_tensors(bits(eltwise(n * hidden, 1, 1, 1, fw, layer, word_bits)), {conv_out}, {act}));
  p.forward.push_back(
      with_tensors(bits(Op::make_gemm({n, outputs, hidden}, fw, layer)), {act, w_dense}, {pred}));
  // Training on the true gradients: MSE gradient, dense backward, relu, conv backward-weight
  // (the predictor's input needs no gradient).
  p.backward.push_back(with_tensors(bits(eltwise(n * outputs, 2, 1, 2, bw, layer, word_bits)),
                                    {pred, use(TensorKind::kWeightGrad, layer, n * outputs)},
                                    {d_pred}));
  p.backward.push_back(with_tensors(bits(Op::make_gemm({hidden, outputs, n}, bw, layer)),
                                    {act, d_pred}, {use(TensorKind::kOwnModel, -1, dense_w, 2)}));
  p.backward.push_back(with_tensors(bits(Op::make_gemm({n, hidden, outputs}, bw, layer)),
                                    {d_pred, w_dense}, {d_act}));
  p.backward.push_back(with_tensors(bits(eltwise(n * hidden, 2, 1, 1, bw, layer, word_bits)),
                                    {conv_out, d_act}, {d_conv}));
  Op conv_bw = Op::make_conv(c, bw, layer);
  // A conv op's role selects the pass it lowers to; keep that pass (backward-weight) while
  // attributing the op to the predictor's training.
  p.backward.push_back(
      with_tensors(bits(conv_bw), {resized, d_conv}, {use(TensorKind::kOwnModel, -1, conv_w, 3)}));
  const std::int64_t params = predictor_params(size, channels, max_outputs);
  OptimizerSpec adam;
  adam.kind = "adam";
  adam.reduction = "mean";
  Op update = Op::make_eltwise(update_shape(params, adam), upd, layer);
  update.eltwise.kernel = EltwiseKernel::kUpdate;
  update.word_bits = word_bits;
  update.eltwise.dram = !resident_weights;
  p.update.push_back(update);
  return p;
}

}  // namespace trainsim
