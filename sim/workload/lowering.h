#pragma once
// Which accelerator op each computation of each layer is, at a given batch size:
//   dense:       forward GEMM (B, Out, In); backward-data GEMM (B, In, Out);
//                backward-weight GEMM (In, Out, B); bias add and bias gradient ride along
//                (the psum is initialised with the bias; the bias gradient is the column
//                sum the backward-weight pass already streams)
//   conv2d:      conv op in the three roles (each dataflow lowers it its own way)
//   relu, leaky: element-wise forward (read x, write y) and derivative (read x and dy)
//   pooling:     element-wise forward (read the k x k window) and derivative
//   softmax:     element-wise forward (exp, sum, divide) and, as the last layer, the fused
//                loss gradient; elsewhere its Jacobian product dx = y (dy - sum(dy y))
//   flatten:     no op: a reshape moves no data on an accelerator
//   update:      element-wise over the layer's parameters; reads, writes and flops depend
//                on the optimizer (SGD: w, g [, v]; Adam: w, g, m, v)
// and for the shape-only layers:
//   conv2d with groups g: one op repeated g times, each channels/g -> filters/g; a
//                rectangular padding (ph != pw) is modelled as an input padded beforehand
//                (H + 2ph) x (W + 2pw) and no padding: the same output and MACs
//   batchnorm:   forward reads x twice (statistics, then normalize); backward-data reads
//                x, dy and the per-channel sums; backward-weight (scale, shift) reads x, dy
//   global_avgpool: like an average pool over the whole map
//   add:         forward reads every input once; backward routes dy (no op)
//   concat:      no op: producers write into adjacent buffer regions; backward slices
//   resize:      bilinear: 4 reads per output value
//   a layer read by n > 1 layers sums their n gradients first (grad_sum, element-wise)
// and the types described by a LayerKind (sim/workload/layer_kind.h), each in its file of
// sim/workload/layers/: conv2d_transpose (the mirrored conv's passes), linear,
// batched_matmul, layernorm, embedding, tanh, sigmoid, gelu, dropout, reshape.
// Element-wise ops run on the vector unit (see sim/accel/cost_model.h).
#include <optional>
#include <vector>

#include "sim/spec/specs.h"
#include "sim/workload/net_shape.h"
#include "sim/workload/op.h"

namespace trainsim {

struct LayerOps {
  std::optional<Op> forward;
  std::optional<Op> backward_data;  ///< kBackwardData, or kActivationGrad for element-wise
  std::optional<Op> backward_weight;
  std::optional<Op> loss_grad;  ///< softmax layer only
  std::optional<Op> update;     ///< layers with parameters only
  std::optional<Op> grad_sum;   ///< graph networks: sums the gradients of several readers
};

/// The ops of every layer of `net` for a batch of `batch` samples.
std::vector<LayerOps> lower_network(const NetShape& net, int batch, int word_bits,
                                    const OptimizerSpec& optimizer);

/// Element-wise shape of one optimizer step over `params` parameters.
ElementwiseShape update_shape(std::int64_t params, const OptimizerSpec& optimizer);

}  // namespace trainsim
