#pragma once
// The DMA engine of an accelerator: streams an op's operands from DRAM into the global
// buffer and its results back, through the shared DRAM channel, while the array computes.
// One request per op covers reads and writes (outputs stream out as they are produced), so
// with nobody else on the channel the op's DRAM time is exactly dram_cycles() of the
// memory model.
#include <array>
#include <systemc>

#include "models/dram_channel.h"
#include "sim/accel/op_stats.h"

namespace trainsim {

class DmaEngine : public sc_core::sc_module {
 public:
  DmaEngine(sc_core::sc_module_name name, DramChannel& dram);
  /// Issues the op's DRAM traffic at `issue`; returns when the last byte has arrived.
  sc_core::sc_time move(const sc_core::sc_time& issue, const OpStats& op);
  void reset();

  std::int64_t read_bytes() const;
  std::int64_t write_bytes() const;

 private:
  DramChannel& dram_;
  std::array<std::int64_t, kNumOperands> read_bytes_{}, write_bytes_{};
};

}  // namespace trainsim
