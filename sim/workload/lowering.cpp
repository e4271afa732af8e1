#include "sim/workload/lowering.h"

#include <algorithm>
#include <stdexcept>

#include "sim/optim/optimizer_registry.h"
#include "sim/workload/layer_kind.h"
#include "sim/workload/layers/layer_kinds.h"

namespace trainsim {

namespace {

Op with_bits(Op op, int word_bits) {
  op.word_bits = word_bits;
  return op;
}

// Whether layer `l` only reinterprets its input (flatten, reshape).
bool is_alias(const NetShape& net, int l) {
  return layer_kind(net.layer_spec(static_cast<std::size_t>(l)).type).alias;
}

// The layer whose output tensor layer `l`'s output is: a flatten or reshape only
// reinterprets, so its output (and its gradient) is its input's, in the same buffer or DRAM
// location.
int tensor_layer(const NetShape& net, int l) {
  while (l >= 0 && is_alias(net, l) && !net.layer(static_cast<std::size_t>(l)).inputs.empty())
    l = net.layer(static_cast<std::size_t>(l)).inputs[0];
  return l;
}

}  // namespace

Op eltwise(std::int64_t elements, int reads, int writes, int flops, OpRole role, int layer,
           int word_bits) {
  Op op = Op::make_eltwise({elements, reads, writes, flops}, role, layer);
  op.word_bits = word_bits;
  return op;
}

Op as_kernel(Op op, EltwiseKernel k) {
  op.eltwise.kernel = k;
  return op;
}

TensorUse use(TensorKind kind, int layer, std::int64_t words, int index) {
  return {tensor_id(kind, layer, index), words};
}

Op with_tensors(Op op, std::initializer_list<TensorUse> in, std::initializer_list<TensorUse> out) {
  std::size_t i = 0;
  for (const TensorUse& t : in) op.inputs[i++] = t;
  i = 0;
  for (const TensorUse& t : out) op.outputs[i++] = t;
  return op;
}

LayerLowering::LayerLowering(const NetShape& net_, std::size_t index, std::int64_t batch_,
                             int word_bits_)
    : net(net_),
      spec(net_.layer_spec(index)),
      shape(net_.layer(index)),
      id(static_cast<int>(index)),
      batch(batch_),
      word_bits(word_bits_),
      last(index + 1 == net_.size()) {
  for (int p : shape.inputs) sources.push_back(tensor_layer(net, p));
  if (sources.empty()) sources.push_back(-1);
  // The tensors of the step this layer touches: its input (the producer's output), its
  // output, their gradients, its parameters and their gradient.
  const std::int64_t in = batch * shape.in.size(), out = batch * shape.out.size();
  x = use(TensorKind::kActivation, sources[0], in);
  y = use(TensorKind::kActivation, id, out);
  dx = use(TensorKind::kGradient, sources[0], in);
  dy = use(TensorKind::kGradient, id, out);
  w = use(TensorKind::kWeight, id, shape.params);
  dw = use(TensorKind::kWeightGrad, id, shape.params);
}

Shape LayerLowering::input_shape(std::size_t k) const {
  const int p = shape.inputs[k];
  if (p >= 0) return net.layer(static_cast<std::size_t>(p)).out;
  const auto& in = net.spec().input;
  return Shape{in[0], in[1], in[2]};
}

TensorUse LayerLowering::input(std::size_t k) const {
  return use(TensorKind::kActivation, sources[k], batch * input_shape(k).size());
}

TensorUse LayerLowering::input_grad(std::size_t k) const {
  const TensorUse a = input(k);
  return {tensor_id(TensorKind::kGradient, sources[k]), a.words};
}

Op LayerLowering::eltwise(std::int64_t elements, int reads, int writes, int flops,
                          OpRole role) const {
  return trainsim::eltwise(elements, reads, writes, flops, role, id, word_bits);
}

Op LayerLowering::gemm(GemmShape g, OpRole role) const {
  return with_bits(Op::make_gemm(g, role, id), word_bits);
}

Op LayerLowering::conv(const ConvShape& c, OpRole role) const {
  return with_bits(Op::make_conv(c, role, id), word_bits);
}

std::string infer_same_shape(const LayerSpec&, const std::vector<Shape>& ins, Shape& out,
                             std::int64_t&) {
  out = ins.front();
  return "";
}

std::string infer_normalization(const LayerSpec&, const std::vector<Shape>& ins, Shape& out,
                                std::int64_t& params) {
  out = ins.front();
  params = 2 * std::int64_t{out.c};
  return "";
}

void lower_nothing(const LayerLowering&, LayerOps&) {}

void lower_dense_product(const LayerLowering& l, std::int64_t m, std::int64_t n, std::int64_t k,
                         LayerOps& ops) {
  ops.forward = with_tensors(l.gemm({m, n, k}, OpRole::kForward), {l.x, l.w}, {l.y});
  ops.backward_data = with_tensors(l.gemm({m, k, n}, OpRole::kBackwardData), {l.dy, l.w}, {l.dx});
  // dW = X^T dY: A is the input's transpose, B the output gradient.
  ops.backward_weight =
      with_tensors(l.gemm({k, n, m}, OpRole::kBackwardWeight), {l.x, l.dy}, {l.dw});
}

void lower_normalization(const LayerLowering& l, LayerOps& ops) {
  const std::int64_t values = l.batch * l.shape.out.size();
  // Forward: mean and variance (2 flops per value), then normalize, scale and shift (4).
  ops.forward = with_tensors(
      as_kernel(l.eltwise(values, 2, 1, 6, OpRole::kForward), EltwiseKernel::kNormalization),
      {l.x, l.w}, {l.y});
  ops.backward_data = with_tensors(as_kernel(l.eltwise(values, 3, 1, 8, OpRole::kActivationGrad),
                                             EltwiseKernel::kNormalizationGrad),
                                   {l.x, l.dy, l.w}, {l.dx});
  ops.backward_weight = with_tensors(as_kernel(l.eltwise(values, 2, 0, 4, OpRole::kBackwardWeight),
                                               EltwiseKernel::kNormalizationGrad),
                                     {l.x, l.dy}, {l.dw});
}

Op loss_gradient(const LayerLowering& l) {
  // The fused loss gradient is the probabilities minus the (one-hot) labels.
  return with_tensors(l.eltwise(l.batch * l.shape.out.size(), 1, 1, 1, OpRole::kActivationGrad),
                      {l.y}, {l.dx});
}

void lower_activation(const LayerLowering& l, int forward_flops, int grad_flops, bool reads_output,
                      LayerOps& ops) {
  const std::int64_t values = l.batch * l.shape.out.size();
  ops.forward =
      with_tensors(l.eltwise(values, 1, 1, forward_flops, OpRole::kForward), {l.x}, {l.y});
  ops.backward_data = with_tensors(l.eltwise(values, 2, 1, grad_flops, OpRole::kActivationGrad),
                                   {reads_output ? l.y : l.x, l.dy}, {l.dx});
}

ElementwiseShape update_shape(std::int64_t params, const OptimizerSpec& o) {
  ElementwiseShape e;
  e.elements = params;
  // Shared pre-processing (Optimizer::prepare_gradient): scale for mean, decay, clip.
  const int pre =
      (o.reduction == "mean" ? 1 : 0) + (o.weight_decay > 0 ? 2 : 0) + (o.clip > 0 ? 1 : 0);
  const OptimizerInfo* info = find_optimizer(o.kind);
  if (info == nullptr) throw std::logic_error("update_shape: unknown optimizer '" + o.kind + "'");
  const OptimizerWork work = info->work(o);
  e.reads = 2 + work.state;   // w, g, the state
  e.writes = 1 + work.state;  // w, the state
  e.flops = pre + work.flops;
  return e;
}

std::vector<LayerOps> lower_network(const NetShape& net, int batch, int word_bits,
                                    const OptimizerSpec& optimizer) {
  std::vector<LayerOps> out(net.size());
  const std::int64_t b = batch;
  for (std::size_t i = 0; i < net.size(); ++i) {
    const LayerShape& shape = net.layer(i);
    const Shape o = shape.out;
    const int id = static_cast<int>(i);
    LayerOps& ops = out[i];
    const LayerLowering l(net, i, b, word_bits);
    layer_kind(net.layer_spec(i).type).lower(l, ops);
    if (shape.consumers > 1) {
      // The readers' gradients arrive one after another into this layer's gradient.
      ops.grad_sum = with_tensors(
          l.eltwise(b * o.size() * (shape.consumers - 1), 2, 1, 1, OpRole::kActivationGrad),
          {use(TensorKind::kGradient, id, b * o.size() * shape.consumers)}, {l.dy});
    }
    if (shape.params > 0) {
      // Reads the weights, their gradient and the optimizer's state; writes the weights and
      // the state back.
      const ElementwiseShape e = update_shape(shape.params, optimizer);
      Op update = Op::make_eltwise(e, OpRole::kUpdate, id);
      update.eltwise.kernel = EltwiseKernel::kUpdate;
      update.word_bits = word_bits;
      update.inputs[0] = l.w;
      update.inputs[1] = l.dw;
      update.outputs[0] = l.w;
      for (int k = 0; k + 2 < e.reads; ++k) {
        const TensorUse state = use(TensorKind::kOptimizerState, id, shape.params, k);
        update.inputs[static_cast<std::size_t>(k + 2)] = state;
        update.outputs[static_cast<std::size_t>(k + 1)] = state;
      }
      ops.update = update;
    }
  }
  return out;
}

}  // namespace trainsim
