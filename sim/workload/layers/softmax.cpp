// softmax: exponentiate, sum and divide each sample's values. As the last layer it is fused
// with cross-entropy, whose gradient is the probabilities minus the labels.
#include "sim/workload/layers/layer_kinds.h"

namespace trainsim {

namespace {

void lower(const LayerLowering& l, LayerOps& ops) {
  const std::int64_t values = l.batch * l.shape.out.size();
  ops.forward =
      with_tensors(as_kernel(l.eltwise(values, 1, 1, 3, OpRole::kForward), EltwiseKernel::kSoftmax),
                   {l.x}, {l.y});
  if (l.last)
    ops.loss_grad = loss_gradient(l);
  else  // dx = y (dy - sum(dy y)): a dot product, a subtraction and a product per value
    ops.backward_data = with_tensors(
        as_kernel(l.eltwise(values, 2, 1, 3, OpRole::kActivationGrad), EltwiseKernel::kSoftmax),
        {l.y, l.dy}, {l.dx});
}

}  // namespace

const LayerKind kSoftmaxKind{&infer_same_shape, nullptr, &lower};

}  // namespace trainsim
