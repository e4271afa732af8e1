// Element-wise activations: relu and leaky_relu (one operation a value each way), and those
// of the Hype-training workloads: tanh (DCGAN's generator output), sigmoid (DCGAN's
// discriminator output, or a gate anywhere), GELU (BERT's feed-forward layers). One op forward and
// one derivative op backward on the vector unit; the flop counts are the arithmetic of the usual
// formulas, a transcendental counted as one operation.
#include "sim/workload/layers/layer_kinds.h"

namespace trainsim {

namespace {

// relu: y = max(x, 0); leaky_relu: y = x or a x; dx = dy where x > 0 (else 0 or a dy).
void lower_relu(const LayerLowering& l, LayerOps& ops) {
  lower_activation(l, 1, 1, false, ops);
}

// tanh: y = tanh(x); dx = dy (1 - y^2).
void lower_tanh(const LayerLowering& l, LayerOps& ops) {
  lower_activation(l, 1, 3, true, ops);
}

// sigmoid: y = 1 / (1 + exp(-x)) (negate, exp, add, divide); dx = dy y (1 - y). As the last
// layer it is fused with binary cross-entropy, whose gradient is y - label, as softmax's is.
void lower_sigmoid(const LayerLowering& l, LayerOps& ops) {
  lower_activation(l, 4, 3, true, ops);
  if (!l.last) return;
  ops.backward_data.reset();
  ops.loss_grad = loss_gradient(l);
}

// GELU, tanh form: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))): 8 operations; its
// derivative re-forms the inner terms and the tanh from x (13).
void lower_gelu(const LayerLowering& l, LayerOps& ops) {
  lower_activation(l, 8, 13, false, ops);
}

}  // namespace

const LayerKind kReluKind{&infer_same_shape, nullptr, &lower_relu};
const LayerKind kTanhKind{&infer_same_shape, nullptr, &lower_tanh};
const LayerKind kSigmoidKind{&infer_same_shape, nullptr, &lower_sigmoid};
const LayerKind kGeluKind{&infer_same_shape, nullptr, &lower_gelu};

}  // namespace trainsim
