#include "sim/accel/cost_model.h"

#include <cstring>

#include "sim/accel/memory_model.h"

namespace trainsim {

OpStats elementwise_cost(const Op& op, const AcceleratorSpec& acc) {
  const ElementwiseShape& e = op.eltwise;
  OpStats s;
  s.pes = acc.vector_lanes;
  s.vector_ops = e.elements * e.flops;
  s.compute_cycles = (s.vector_ops + acc.vector_lanes - 1) / acc.vector_lanes;
  // Operands are read into and results written from the lanes' registers via the buffer.
  s.buffer.reads[kIfmap] = e.elements * e.reads;
  s.buffer.writes[kOfmap] = e.elements * e.writes;
  s.rf.reads[kIfmap] = e.elements * e.reads;
  s.rf.writes[kOfmap] = e.elements * e.writes;
  s.mapping = {{"lanes", acc.vector_lanes}, {"elements", e.elements}};
  return s;
}

OpStats evaluate_op(const Op& op, const AcceleratorSpec& acc, const Dataflow& df) {
  if (op.repeat > 1) {
    // The repetitions (groups) run one after another, each as the op alone: its operands
    // stream in and its results out, so every count scales, stall included.
    Op one = op;
    one.repeat = 1;
    return evaluate_op(one, acc, df).repeated(op.repeat);
  }
  OpStats s;
  if (op.kind == OpKind::kElementwise) {
    s = elementwise_cost(op, acc);
  } else {
    check_buffer_fits(op, acc);
    s = df.evaluate(op, acc);
  }
  account_dram(op, acc, s);
  account_stall(acc, s);
  return s;
}

bool CostModel::Key::operator==(const Key& o) const {
  return kind == o.kind && role == o.role && word_bits == o.word_bits &&
         resident_filter == o.resident_filter && repeat == o.repeat &&
         std::memcmp(d, o.d, sizeof d) == 0;
}

std::size_t CostModel::KeyHash::operator()(const Key& k) const {
  std::size_t h = static_cast<std::size_t>(k.kind) * 31 + static_cast<std::size_t>(k.role);
  h = h * 1000003u ^ static_cast<std::size_t>(k.word_bits);
  h = h * 1000003u ^ static_cast<std::size_t>(k.resident_filter);
  h = h * 1000003u ^ static_cast<std::size_t>(k.repeat);
  for (std::int64_t v : k.d) h = h * 1000003u ^ static_cast<std::size_t>(v);
  return h;
}

CostModel::Key CostModel::key_of(const Op& op) {
  Key k{op.kind, op.role, op.word_bits, op.resident_filter, op.repeat, {}};
  switch (op.kind) {
    case OpKind::kGemm:
      k.d[0] = op.gemm.m, k.d[1] = op.gemm.n, k.d[2] = op.gemm.k;
      break;
    case OpKind::kConv: {
      const ConvShape& c = op.conv;
      const std::int64_t v[9] = {c.batch,    c.channels, c.height, c.width, c.filters,
                                 c.kernel_h, c.kernel_w, c.stride, c.pad};
      std::memcpy(k.d, v, sizeof v);
      break;
    }
    case OpKind::kElementwise:
      k.d[0] = op.eltwise.elements, k.d[1] = op.eltwise.reads, k.d[2] = op.eltwise.writes,
      k.d[3] = op.eltwise.flops, k.d[4] = op.eltwise.dram;
      break;
  }
  return k;
}

const OpStats& CostModel::cost(const Op& op) {
  const Key k = key_of(op);
  auto it = cache_.find(k);
  if (it != cache_.end()) return it->second;
  return cache_.emplace(k, evaluate_op(op, acc_, df_)).first->second;
}

}  // namespace trainsim
