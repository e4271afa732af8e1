// batched_matmul: C = A B (or A B^T) per head, for each sample (attention's scores Q K^T and
// its context P V). A sequence tensor C x H x W is H x W positions of C features; with
// `heads` G its features split into G blocks, each a positions x C/G matrix (a head's
// queries, keys or values, read in place: the head split TensorFlow does with a Reshape and
// a Transpose is a strided view here). The output of head g is M x N, stored as the
// features [g N, (g + 1) N) of M positions: G N x M x 1. So scores Q K^T (transpose_b) are
// 16 x 384 features for each of 384 positions, and P V reads them back as 16 blocks of 384.
//
// One GEMM per pass, repeated batch x heads times (Op::repeat):
//   forward          C  = A B'            (M, N, K)
//   backward-data    dA = dC B'^T         (M, K, N)
//   backward-weight  dB = A^T dC (K, N, M), or with transpose_b dB = dC^T A (N, K, M)
// where B' is B or B^T. The second operand's gradient takes a dense layer's weight-gradient
// slot (LayerKind::second_operand_grad); its op's role is bwd-data, the gradient it is.
#include "sim/workload/layers/layer_kinds.h"
#include "sim/workload/size_limits.h"

namespace trainsim {

namespace {

struct Dims {
  std::int64_t m = 0, n = 0, k = 0, heads = 1;
};

// The per-head product's dimensions, or an error.
std::string dims(const LayerSpec& s, const std::vector<Shape>& ins, Dims& d) {
  if (ins.size() != 2)
    return "needs two inputs in `from` (A and B), got " + std::to_string(ins.size());
  const Shape &a = ins[0], &b = ins[1];
  if (a.c % s.heads != 0 || b.c % s.heads != 0)
    return "heads " + std::to_string(s.heads) + " must divide the features of both inputs (" +
           std::to_string(a.c) + " and " + std::to_string(b.c) + ")";
  const std::int64_t a_cols = a.c / s.heads, b_rows = std::int64_t{b.h} * b.w,
                     b_cols = b.c / s.heads;
  d.heads = s.heads;
  d.m = std::int64_t{a.h} * a.w;
  d.k = s.transpose_b ? b_cols : b_rows;
  d.n = s.transpose_b ? b_rows : b_cols;
  if (a_cols != d.k)
    return "A is " + std::to_string(d.m) + " x " + std::to_string(a_cols) + " per head, B" +
           (s.transpose_b ? "^T" : "") + " " + std::to_string(d.k) + " x " + std::to_string(d.n) +
           ": the inner dimensions differ";
  return "";
}

std::string infer(const LayerSpec& s, const std::vector<Shape>& ins, Shape& out, std::int64_t&) {
  Dims d;
  std::string err = dims(s, ins, d);
  if (!err.empty()) return err;
  const std::int64_t features = saturating_product({d.heads, d.n});
  if (features > kMaxSampleValues || d.m > kMaxSampleValues)
    return "the output " + std::to_string(features) + " x " + std::to_string(d.m) + " is too large";
  out = Shape{static_cast<int>(features), static_cast<int>(d.m), 1};
  return "";
}

std::int64_t work(const LayerSpec& s, const std::vector<Shape>& ins, const Shape&) {
  Dims d;
  if (!dims(s, ins, d).empty()) return 0;
  return saturating_product({d.heads, d.m, d.n, d.k});
}

void lower(const LayerLowering& l, LayerOps& ops) {
  Dims d;
  dims(l.spec, {l.input_shape(0), l.input_shape(1)}, d);
  auto gemm = [&](GemmShape g, OpRole role) {
    Op op = l.gemm(g, role);
    op.repeat = l.batch * d.heads;
    return op;
  };
  const TensorUse a = l.input(0), b = l.input(1);
  ops.forward = with_tensors(gemm({d.m, d.n, d.k}, OpRole::kForward), {a, b}, {l.y});
  ops.backward_data =
      with_tensors(gemm({d.m, d.k, d.n}, OpRole::kBackwardData), {l.dy, b}, {l.input_grad(0)});
  const GemmShape db = l.spec.transpose_b ? GemmShape{d.n, d.k, d.m} : GemmShape{d.k, d.n, d.m};
  ops.backward_weight = with_tensors(gemm(db, OpRole::kBackwardData), {a, l.dy}, {l.input_grad(1)});
}

}  // namespace

const LayerKind kBatchedMatmulKind{&infer, &work, &lower, false, true};

}  // namespace trainsim
