#include "sim/hype/op_types.h"

#include <iterator>

#include "sim/devices/op_work.h"

namespace trainsim {

namespace {

struct TypeInfo {
  PaperOpType type;
  const char* name;
  const char* folded_into;  // "" for the types trainsim issues as ops
};

// In enum order.
constexpr TypeInfo kTypes[] = {
    {PaperOpType::kMatMul, "MatMul", ""},
    {PaperOpType::kConv2D, "Conv2D", ""},
    {PaperOpType::kConv2DBackpropFilter, "Conv2DBackpropFilter", ""},
    {PaperOpType::kConv2DBackpropInput, "Conv2DBackpropInput", ""},
    {PaperOpType::kBiasAdd, "BiasAdd",
     "the forward MatMul or Conv2D: its partial sums start at the bias"},
    {PaperOpType::kBiasAddGrad, "BiasAddGrad",
     "the backward-weight MatMul or Conv2DBackpropFilter: the column sum of dY it streams anyway"},
    {PaperOpType::kMul, "Mul",
     "the optimizer's update: weight decay's multiply (the gradient of L2Loss) is in its flops "
     "(a dropout layer's gradient is issued as a Mul)"},
    {PaperOpType::kTranspose, "Transpose",
     "the MatMul that reads the operand transposed (each GEMM of the lowering is given as "
     "executed)"},
    {PaperOpType::kL2Loss, "L2Loss", "the optimizer's update: weight decay is in its flops"},
    {PaperOpType::kRelu, "Relu", ""},
    {PaperOpType::kReluGrad, "ReluGrad", ""},
    {PaperOpType::kLeakyRelu, "LeakyRelu", ""},
    {PaperOpType::kLeakyReluGrad, "LeakyReluGrad", ""},
    {PaperOpType::kMaxPool, "MaxPool", ""},
    {PaperOpType::kMaxPoolGrad, "MaxPoolGrad", ""},
    {PaperOpType::kAvgPool, "AvgPool", ""},
    {PaperOpType::kAvgPoolGrad, "AvgPoolGrad", ""},
    {PaperOpType::kBatchNorm, "BatchNorm", ""},
    {PaperOpType::kBatchNormGrad, "BatchNormGrad", ""},
    {PaperOpType::kAdd, "Add", ""},
    {PaperOpType::kAddN, "AddN", ""},
    {PaperOpType::kResizeBilinear, "ResizeBilinear", ""},
    {PaperOpType::kSoftmax, "Softmax", ""},
    {PaperOpType::kSoftmaxCrossEntropy, "SoftmaxCrossEntropyWithLogits", ""},
    {PaperOpType::kApplyGradientDescent, "ApplyGradientDescent", ""},
    {PaperOpType::kApplyMomentum, "ApplyMomentum", ""},
    {PaperOpType::kApplyAdam, "ApplyAdam", ""},
    {PaperOpType::kBatchMatMul, "BatchMatMul", ""},
    {PaperOpType::kSoftmaxGrad, "SoftmaxGrad", ""},
    {PaperOpType::kNorm, "Norm", ""},
    {PaperOpType::kNormGrad, "NormGrad", ""},
    {PaperOpType::kTanh, "Tanh", ""},
    {PaperOpType::kTanhGrad, "TanhGrad", ""},
    {PaperOpType::kSigmoid, "Sigmoid", ""},
    {PaperOpType::kSigmoidGrad, "SigmoidGrad", ""},
    {PaperOpType::kSigmoidCrossEntropy, "SigmoidCrossEntropyWithLogits", ""},
    {PaperOpType::kGelu, "Gelu", ""},
    {PaperOpType::kGeluGrad, "GeluGrad", ""},
    {PaperOpType::kDropout, "Dropout", ""},
    {PaperOpType::kGatherV2, "GatherV2", ""},
    {PaperOpType::kUnsortedSegmentSum, "UnsortedSegmentSum", ""},
    {PaperOpType::kOther, "Other", ""},
};
static_assert(std::size(kTypes) == kNumPaperOpTypes, "one entry per type");

// The mapping: a layer type ("*": any) and the slot of its lowered op. An update is typed by
// the optimizer that lowered it, which its reads tell (update_shape(): SGD reads w and g,
// momentum also v, Adam also m and v); `reads` 0 matches any op.
struct Rule {
  const char* layer;
  LayerOpSlot slot;
  PaperOpType type;
  int reads = 0;
};

constexpr Rule kRules[] = {
    // A dense layer's three GEMMs are MatMuls (TensorFlow's gradients of a MatMul are MatMuls
    // with transposed operands).
    {"dense", LayerOpSlot::kForward, PaperOpType::kMatMul},
    {"dense", LayerOpSlot::kBackwardData, PaperOpType::kMatMul},
    {"dense", LayerOpSlot::kBackwardWeight, PaperOpType::kMatMul},
    {"conv2d", LayerOpSlot::kForward, PaperOpType::kConv2D},
    {"conv2d", LayerOpSlot::kBackwardData, PaperOpType::kConv2DBackpropInput},
    {"conv2d", LayerOpSlot::kBackwardWeight, PaperOpType::kConv2DBackpropFilter},
    {"relu", LayerOpSlot::kForward, PaperOpType::kRelu},
    {"relu", LayerOpSlot::kBackwardData, PaperOpType::kReluGrad},
    {"leaky_relu", LayerOpSlot::kForward, PaperOpType::kLeakyRelu},
    {"leaky_relu", LayerOpSlot::kBackwardData, PaperOpType::kLeakyReluGrad},
    {"maxpool2d", LayerOpSlot::kForward, PaperOpType::kMaxPool},
    {"maxpool2d", LayerOpSlot::kBackwardData, PaperOpType::kMaxPoolGrad},
    {"avgpool2d", LayerOpSlot::kForward, PaperOpType::kAvgPool},
    {"avgpool2d", LayerOpSlot::kBackwardData, PaperOpType::kAvgPoolGrad},
    // TensorFlow's models write a global average pool as a Mean; trainsim lowers it as the
    // average pool over the whole map it is.
    {"global_avgpool", LayerOpSlot::kForward, PaperOpType::kAvgPool},
    {"global_avgpool", LayerOpSlot::kBackwardData, PaperOpType::kAvgPoolGrad},
    {"softmax", LayerOpSlot::kForward, PaperOpType::kSoftmax},
    {"softmax", LayerOpSlot::kLossGrad, PaperOpType::kSoftmaxCrossEntropy},
    // FusedBatchNormGrad computes dX, dgamma and dbeta at once; trainsim has two ops.
    {"batchnorm", LayerOpSlot::kForward, PaperOpType::kBatchNorm},
    {"batchnorm", LayerOpSlot::kBackwardData, PaperOpType::kBatchNormGrad},
    {"batchnorm", LayerOpSlot::kBackwardWeight, PaperOpType::kBatchNormGrad},
    {"add", LayerOpSlot::kForward, PaperOpType::kAdd},
    {"resize", LayerOpSlot::kForward, PaperOpType::kResizeBilinear},
    // TensorFlow has no op for a softmax's Jacobian product (it composes it of Mul, Sum and
    // Sub); trainsim issues one and calls it SoftmaxGrad.
    {"softmax", LayerOpSlot::kBackwardData, PaperOpType::kSoftmaxGrad},
    // conv2d_transpose needs no rule: its ops are the mirrored convolution's passes and are
    // typed by their kernel (forward Conv2DBackpropInput, as TensorFlow's conv2d_transpose).
    {"linear", LayerOpSlot::kForward, PaperOpType::kMatMul},
    {"linear", LayerOpSlot::kBackwardData, PaperOpType::kMatMul},
    {"linear", LayerOpSlot::kBackwardWeight, PaperOpType::kMatMul},
    // Both operands' gradients of a BatchMatMul are BatchMatMuls; the second's is in the
    // backward-weight slot (LayerKind::second_operand_grad).
    {"batched_matmul", LayerOpSlot::kForward, PaperOpType::kBatchMatMul},
    {"batched_matmul", LayerOpSlot::kBackwardData, PaperOpType::kBatchMatMul},
    {"batched_matmul", LayerOpSlot::kBackwardWeight, PaperOpType::kBatchMatMul},
    // The paper's "Norm" (BERT's layer normalization).
    {"layernorm", LayerOpSlot::kForward, PaperOpType::kNorm},
    {"layernorm", LayerOpSlot::kBackwardData, PaperOpType::kNormGrad},
    {"layernorm", LayerOpSlot::kBackwardWeight, PaperOpType::kNormGrad},
    {"tanh", LayerOpSlot::kForward, PaperOpType::kTanh},
    {"tanh", LayerOpSlot::kBackwardData, PaperOpType::kTanhGrad},
    {"sigmoid", LayerOpSlot::kForward, PaperOpType::kSigmoid},
    {"sigmoid", LayerOpSlot::kBackwardData, PaperOpType::kSigmoidGrad},
    {"sigmoid", LayerOpSlot::kLossGrad, PaperOpType::kSigmoidCrossEntropy},
    {"gelu", LayerOpSlot::kForward, PaperOpType::kGelu},
    {"gelu", LayerOpSlot::kBackwardData, PaperOpType::kGeluGrad},
    // Dropout's gradient multiplies dy by the scaled mask: TensorFlow's Mul.
    {"dropout", LayerOpSlot::kForward, PaperOpType::kDropout},
    {"dropout", LayerOpSlot::kBackwardData, PaperOpType::kMul},
    {"embedding", LayerOpSlot::kForward, PaperOpType::kGatherV2},
    {"embedding", LayerOpSlot::kBackwardWeight, PaperOpType::kUnsortedSegmentSum},
    {"*", LayerOpSlot::kGradSum, PaperOpType::kAddN},
    {"*", LayerOpSlot::kUpdate, PaperOpType::kApplyGradientDescent, 2},
    {"*", LayerOpSlot::kUpdate, PaperOpType::kApplyMomentum, 3},
    {"*", LayerOpSlot::kUpdate, PaperOpType::kApplyAdam, 4},
};

// Ops the table does not cover (a technique's, or of a layer type added later): by the kernel
// a device would run them on.
PaperOpType by_kind(const Op& op) {
  switch (kernel_type(op)) {
    case KernelType::kMatMul:
      return PaperOpType::kMatMul;
    case KernelType::kConv2D:
      return PaperOpType::kConv2D;
    case KernelType::kConv2DBackpropInput:
      return PaperOpType::kConv2DBackpropInput;
    case KernelType::kConv2DBackpropFilter:
      return PaperOpType::kConv2DBackpropFilter;
    case KernelType::kElementwise:
      break;
  }
  return PaperOpType::kOther;
}

}  // namespace

const char* paper_op_type_name(PaperOpType t) {
  return kTypes[static_cast<std::size_t>(t)].name;
}

bool parse_paper_op_type(const std::string& text, PaperOpType& t) {
  for (const TypeInfo& info : kTypes) {
    if (text == info.name) {
      t = info.type;
      return true;
    }
  }
  return false;
}

const char* folded_into(PaperOpType t) {
  return kTypes[static_cast<std::size_t>(t)].folded_into;
}

bool is_gradient_sum(const Op& op) {
  const TensorId own = tensor_id(TensorKind::kGradient, op.layer);
  return op.kind == OpKind::kElementwise && op.role == OpRole::kActivationGrad && op.layer >= 0 &&
         op.inputs[0].id == own && op.outputs[0].id == own;
}

bool is_loss_gradient(const Op& op) {
  if (op.kind != OpKind::kElementwise || op.role != OpRole::kActivationGrad || op.layer < 0)
    return false;
  for (const TensorUse& t : op.inputs)
    if (t.id != kNoTensor && tensor_id_kind(t.id) == TensorKind::kGradient) return false;
  return true;
}

PaperOpType paper_op_type(const Op& op, const std::string& layer_type, LayerOpSlot slot) {
  for (const Rule& r : kRules) {
    if (r.slot != slot || (std::string(r.layer) != "*" && layer_type != r.layer)) continue;
    if (r.reads != 0 && (op.kind != OpKind::kElementwise || op.eltwise.reads != r.reads)) continue;
    return r.type;
  }
  return by_kind(op);
}

PaperOpType paper_op_type(const Op& op, const std::string& layer_type) {
  switch (op.role) {
    case OpRole::kForward:
      return paper_op_type(op, layer_type, LayerOpSlot::kForward);
    case OpRole::kBackwardData:
      return paper_op_type(op, layer_type, LayerOpSlot::kBackwardData);
    case OpRole::kBackwardWeight:
      return paper_op_type(op, layer_type, LayerOpSlot::kBackwardWeight);
    case OpRole::kUpdate:
      return paper_op_type(op, layer_type, LayerOpSlot::kUpdate);
    case OpRole::kActivationGrad:
      if (is_gradient_sum(op)) return paper_op_type(op, layer_type, LayerOpSlot::kGradSum);
      return paper_op_type(
          op, layer_type,
          is_loss_gradient(op) ? LayerOpSlot::kLossGrad : LayerOpSlot::kBackwardData);
    default:
      return by_kind(op);
  }
}

PaperOpType paper_op_type(const Op& op, const NetShape& net) {
  if (op.layer < 0 || static_cast<std::size_t>(op.layer) >= net.size()) return by_kind(op);
  return paper_op_type(op, net.layer_spec(static_cast<std::size_t>(op.layer)).type);
}

}  // namespace trainsim
