// embedding: a table of `vocab` vectors of `units` values, looked up by the token id at each
// position: 1 x H x W ids -> units x H x W (BERT's token, position and segment embeddings).
// Forward gathers a row per position; backward-weight scatter-adds dy into the rows read
// (TensorFlow's UnsortedSegmentSum); ids have no gradient, so there is no backward-data. The
// update covers the whole table, as a dense optimizer step does.
#include "sim/workload/layers/layer_kinds.h"
#include "sim/workload/size_limits.h"

namespace trainsim {

namespace {

std::string infer(const LayerSpec& s, const std::vector<Shape>& ins, Shape& out,
                  std::int64_t& params) {
  const Shape& in = ins.front();
  if (in.c != 1)
    return "reads one token id per position: its input must have 1 channel, got " + in.str();
  out = Shape{s.units, in.h, in.w};
  params = saturating_product({s.vocab, s.units});
  return "";
}

void lower(const LayerLowering& l, LayerOps& ops) {
  const std::int64_t values = l.batch * l.shape.out.size();
  // Per output value: the table's value (the ids are read once per row, a fraction).
  ops.forward = with_tensors(l.eltwise(values, 1, 1, 1, OpRole::kForward), {l.x, l.w}, {l.y});
  // Per value of dy: read it and the accumulated row value, add, write back.
  ops.backward_weight =
      with_tensors(l.eltwise(values, 2, 1, 1, OpRole::kBackwardWeight), {l.x, l.dy}, {l.dw});
  // A scatter-add into the table's gradient: a reduction on a GPU.
  ops.backward_weight->eltwise.kernel = EltwiseKernel::kReduction;
}

}  // namespace

const LayerKind kEmbeddingKind{&infer, nullptr, &lower};

}  // namespace trainsim
