// dropout: y = x m / (1 - rate) with a random mask m per value (BERT drops after the
// embeddings, the attention probabilities and each sublayer; AlexNet before its dense
// layers). The forward op draws the mask and writes it beside y (a word per value, the
// layer's activation index 1, so that the DAG links the backward op to it); backward-data is
// dx = dy m / (1 - rate), the multiply TensorFlow issues as a Mul. Timed only: the numerics
// have no training / evaluation mode to switch it off in.
#include "sim/workload/layers/layer_kinds.h"

namespace trainsim {

namespace {

std::string infer(const LayerSpec& s, const std::vector<Shape>& ins, Shape& out, std::int64_t&) {
  if (!(s.rate >= 0 && s.rate < 1)) return "rate " + std::to_string(s.rate) + " must be in [0, 1)";
  out = ins.front();
  return "";
}

void lower(const LayerLowering& l, LayerOps& ops) {
  const std::int64_t values = l.batch * l.shape.out.size();
  const TensorUse mask{tensor_id(TensorKind::kActivation, l.id, 1), values};
  // A random draw and a compare for the mask, a multiply by the scaled mask.
  ops.forward = with_tensors(l.eltwise(values, 1, 2, 3, OpRole::kForward), {l.x}, {l.y, mask});
  ops.backward_data =
      with_tensors(l.eltwise(values, 2, 1, 1, OpRole::kActivationGrad), {mask, l.dy}, {l.dx});
}

}  // namespace

const LayerKind kDropoutKind{&infer, nullptr, &lower};

}  // namespace trainsim
