#pragma once
// The element-wise (vector) unit beside the PE array: weight updates, activation and pooling
// derivatives. `lanes` operations per cycle; operands are read from and results written to
// the global buffer.
#include "sim/spec/accel_spec.h"
#include "sim/spec/op_stats.h"
#include "sim/workload/op.h"

namespace trainsim {

/// Array-side cost of an element-wise op on the vector unit (no DRAM, no stall).
OpStats elementwise_cost(const Op& op, const AcceleratorSpec& acc);

}  // namespace trainsim
