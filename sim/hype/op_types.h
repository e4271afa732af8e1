#pragma once
// The op types of He et al. (Hype-training, ICS 2021), which are TensorFlow's: what each of
// trainsim's lowered ops is called in the paper's Tables 1 and 2, so that characterization,
// calibration and reports name ops as the paper does. One table (op_types.cpp) maps a layer
// type and the slot of the lowered op (forward, backward-data, backward-weight, loss gradient,
// gradient sum, update; sim/workload/step_order.h) to the type.
//
// Some of the paper's types are no op of their own in trainsim: the lowering folds them into
// another op without changing that op's cost model (folded_into() says where). The calibration
// builds representative ops of three of them (BiasAddGrad, Mul, Transpose) for comparison with
// Table 1 only (sim/hype/calibration.h); no training step issues them.
#include <cstdint>
#include <string>

#include "sim/workload/net_shape.h"
#include "sim/workload/op.h"
#include "sim/workload/step_order.h"

namespace trainsim {

enum class PaperOpType : std::uint8_t {
  kMatMul,
  kConv2D,
  kConv2DBackpropFilter,
  kConv2DBackpropInput,
  kBiasAdd,
  kBiasAddGrad,
  kMul,
  kTranspose,
  kL2Loss,
  kRelu,
  kReluGrad,
  kLeakyRelu,
  kLeakyReluGrad,
  kMaxPool,
  kMaxPoolGrad,
  kAvgPool,
  kAvgPoolGrad,
  kBatchNorm,
  kBatchNormGrad,
  kAdd,
  kAddN,
  kResizeBilinear,
  kSoftmax,
  kSoftmaxCrossEntropy,
  kApplyGradientDescent,
  kApplyMomentum,
  kApplyAdam,
  kBatchMatMul,
  kSoftmaxGrad,
  kNorm,
  kNormGrad,
  kTanh,
  kTanhGrad,
  kSigmoid,
  kSigmoidGrad,
  kSigmoidCrossEntropy,
  kGelu,
  kGeluGrad,
  kDropout,
  kGatherV2,
  kUnsortedSegmentSum,
  kOther,  ///< a technique's element-wise op (ADA-GP's predictor, speculative backprop's store)
};
inline constexpr int kNumPaperOpTypes = 42;

/// TensorFlow's name: "MatMul", "Conv2DBackpropFilter", "SoftmaxCrossEntropyWithLogits", ...
/// ("Other" for kOther).
const char* paper_op_type_name(PaperOpType t);
/// Parses paper_op_type_name() output; false if unknown.
bool parse_paper_op_type(const std::string& text, PaperOpType& t);
/// Where trainsim's lowering keeps a type that it issues no op of ("the forward GEMM or
/// convolution: its partial sums start at the bias" for BiasAdd), or "" for the types it issues.
const char* folded_into(PaperOpType t);

/// The paper's type of the op a layer of type `layer_type` lowers to for `slot`.
PaperOpType paper_op_type(const Op& op, const std::string& layer_type, LayerOpSlot slot);
/// The same with the slot read off the op: its role, and for an element-wise op of role
/// act-grad whether it sums its layer's gradient (is_gradient_sum) or is the last layer's loss
/// gradient (is_loss_gradient). Ops of a technique's roles (predictor, compare, store) are typed by
/// their kind.
PaperOpType paper_op_type(const Op& op, const std::string& layer_type);
/// The same with the layer type from `net` (ops of no layer are typed by their kind).
PaperOpType paper_op_type(const Op& op, const NetShape& net);

/// Whether `op` is a layer's sum of its readers' gradients (LayerOps::grad_sum): the one
/// element-wise op that reads and writes its own layer's gradient.
bool is_gradient_sum(const Op& op);
/// Whether `op` is the last layer's fused loss gradient (LayerOps::loss_grad): the one
/// element-wise op of role act-grad that reads no gradient (its output and the labels).
bool is_loss_gradient(const Op& op);

}  // namespace trainsim
