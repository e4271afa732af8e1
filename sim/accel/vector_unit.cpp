#include "sim/accel/vector_unit.h"

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

}  // namespace trainsim
