#pragma once
// The global buffer: three partitions (ifmap, filter, ofmap) like SCALE-Sim's SRAMs. For
// each op it checks that a tile fits and decides, from the array's buffer accesses, what
// has to come from (or go to) DRAM (sim/accel/memory_model.h). It also keeps the running
// access totals per operand.
#include <systemc>

#include "sim/accel/memory_model.h"

namespace trainsim {

class GlobalBuffer : public sc_core::sc_module {
 public:
  explicit GlobalBuffer(sc_core::sc_module_name name);
  void configure(const AcceleratorSpec& acc);
  /// Capacity check + DRAM traffic of `op` into `s` (array-side counts already in `s`).
  void plan(const Op& op, OpStats& s);
  /// Records the buffer accesses of an executed op.
  void record(const OpStats& s) { accesses_ += s.buffer; }
  const AccessCounts& accesses() const { return accesses_; }

 private:
  const AcceleratorSpec* acc_ = nullptr;
  AccessCounts accesses_;
};

}  // namespace trainsim
