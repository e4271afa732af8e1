#pragma once
// The global buffer: keeps the running access totals per operand of the ops executed. What
// it holds when, and what comes from or goes to DRAM, is the memory model's business
// (sim/accel/memory_model.h), which both fidelities run.
#include "sim/spec/accel_spec.h"
#include "sim/spec/op_stats.h"

namespace trainsim {

class GlobalBuffer {
 public:
  void configure(const AcceleratorSpec& acc);
  /// Records the buffer accesses of an executed op.
  void record(const OpStats& s) { accesses_ += s.buffer; }
  const AccessCounts& accesses() const { return accesses_; }

 private:
  const AcceleratorSpec* acc_ = nullptr;
  AccessCounts accesses_;
};

}  // namespace trainsim
