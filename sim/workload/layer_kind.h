#pragma once
// What NetShape and the lowering need to know of a layer type, as one descriptor per type, so
// that a type is a file of its own (sim/workload/layers/) plus a line in the layer registry
// (sim/nn/layer_registry.cpp) and in layer_kinds.cpp instead of a branch in each of them. Every
// registered type has one; the helpers below are shared by types that do the same computation.
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "sim/spec/shape.h"
#include "sim/spec/specs.h"
#include "sim/workload/lowering.h"
#include "sim/workload/net_shape.h"
#include "sim/workload/op.h"

namespace trainsim {

/// One layer being lowered: its shapes, its tensors and how to make its ops.
struct LayerLowering {
  /// Layer `index` of `net` at `batch` samples: its tensors and sources.
  LayerLowering(const NetShape& net, std::size_t index, std::int64_t batch, int word_bits);

  const NetShape& net;
  const LayerSpec& spec;
  const LayerShape& shape;
  int id = 0;              ///< the layer's index (its ops' layer)
  std::int64_t batch = 1;  ///< samples
  int word_bits = 16;
  bool last = false;  ///< the network's last layer (fused with the loss)
  /// The layer (flatten and reshape resolved to their producers) whose output each input is.
  std::vector<int> sources;
  /// Its first input and output, their gradients, its parameters and their gradient.
  TensorUse x, y, dx, dy, w, dw;

  /// Input k's shape (one sample), and the input as `sources[k]`'s activation or its
  /// gradient, the whole batch.
  Shape input_shape(std::size_t k) const;
  TensorUse input(std::size_t k) const;
  TensorUse input_grad(std::size_t k) const;
  /// An op of this layer at the lowering's word width.
  Op eltwise(std::int64_t elements, int reads, int writes, int flops, OpRole role) const;
  Op gemm(GemmShape g, OpRole role) const;
  Op conv(const ConvShape& c, OpRole role) const;
};

/// The layer type's descriptor. Every function may assume the keys were parsed and checked
/// against their ranges (sim/workload/layer_fields.cpp); the keys a type requires are in its
/// registry line (LayerTypeInfo::required).
struct LayerKind {
  /// Output shape and trainable parameters from the inputs' shapes, or an error message
  /// ("" if the shapes work out). NetShape prefixes the network, file and layer.
  std::string (*infer)(const LayerSpec& spec, const std::vector<Shape>& ins, Shape& out,
                       std::int64_t& params);
  /// The largest count one sample forms in any pass (MACs, or values an element-wise op
  /// moves: a pooling window per output, every input of an add; a conv's backward-data pass
  /// convolves over the padded input, so H_p x W_p x R x S x C x F bounds all three), saturating
  /// (sim/workload/size_limits.h). NetShape takes the larger of it and the input's and the
  /// output's values; nullptr: those alone.
  std::int64_t (*work)(const LayerSpec& spec, const std::vector<Shape>& ins, const Shape& out);
  /// Fills the layer's forward, backward-data and backward-weight ops (the lowering adds the
  /// update and the gradient sum).
  void (*lower)(const LayerLowering& layer, LayerOps& ops);
  /// Its output is its input, reinterpreted: no op writes it (a reshape).
  bool alias = false;
  /// Its backward-weight slot computes its second input's gradient, which takes the
  /// weights' place in the product (batched_matmul: dB = A^T dC as a dense layer's dW = X^T
  /// dY), so the slot is issued even though the layer has no parameters.
  bool second_operand_grad = false;
  /// One sample's forward multiply-adds as NetShape::forward_macs() counts them (dense and
  /// conv2d layers; nullptr: the type adds none to that figure).
  std::int64_t (*forward_macs)(const LayerSpec& spec, const LayerShape& shape) = nullptr;
};

/// Output extent of a sliding window of `k` at `stride` over `in` padded by `pad` on both
/// sides; 0 and `err` set ("kernel 5 does not fit the input height 3") if it does not fit.
/// `axis` names the extent in the message.
int window_extent(int in, int pad, int k, int stride, const char* axis, std::string& err);

/// LayerKind::infer of a type whose output has its (first) input's shape and which has no
/// parameters (the activations, softmax, a sink).
std::string infer_same_shape(const LayerSpec& spec, const std::vector<Shape>& ins, Shape& out,
                             std::int64_t& params);
/// LayerKind::infer of a normalization (batchnorm, layernorm): the input's shape, a scale and
/// a shift per channel.
std::string infer_normalization(const LayerSpec& spec, const std::vector<Shape>& ins, Shape& out,
                                std::int64_t& params);
/// LayerKind::lower of a type that issues no op (concat, flatten, reshape, source, sink).
void lower_nothing(const LayerLowering& layer, LayerOps& ops);

/// Sets an op's tensors: up to four read, up to three written.
Op with_tensors(Op op, std::initializer_list<TensorUse> in, std::initializer_list<TensorUse> out);
/// An element-wise op of `elements` elements, each reading `reads`, writing `writes` and
/// computing `flops` words of `word_bits` bits.
Op eltwise(std::int64_t elements, int reads, int writes, int flops, OpRole role, int layer,
           int word_bits);
/// The op with its element-wise kernel class set (EltwiseKernel: what a GPU runs it as).
Op as_kernel(Op op, EltwiseKernel k);
/// Tensor `index` of `kind` of `layer`, `words` words of it.
TensorUse use(TensorKind kind, int layer, std::int64_t words, int index = 0);

/// The three GEMMs of a dense product Y[M x N] = X[M x K] W[K x N]: forward (M, N, K),
/// backward-data dX = dY W^T (M, K, N), backward-weight dW = X^T dY (K, N, M). dense has M =
/// the batch, linear M = batch x positions.
void lower_dense_product(const LayerLowering& l, std::int64_t m, std::int64_t n, std::int64_t k,
                         LayerOps& ops);
/// The element-wise ops of a normalization with a scale and shift per feature (batchnorm,
/// layernorm): statistics and normalization forward, dX and d(scale, shift) backward. The
/// axis the statistics run over does not change the counts.
void lower_normalization(const LayerLowering& l, LayerOps& ops);
/// The fused loss gradient of the last layer: its output minus the labels (softmax with
/// cross-entropy, sigmoid with binary cross-entropy).
Op loss_gradient(const LayerLowering& l);
/// An element-wise activation: forward (`forward_flops` per value, reads x, writes y) and
/// its derivative (reads `saved` (x or y) and dy, writes dx).
void lower_activation(const LayerLowering& l, int forward_flops, int grad_flops, bool reads_output,
                      LayerOps& ops);

}  // namespace trainsim
