#pragma once
// The DMA engine of an accelerator: moves operands from DRAM into the global buffer and
// results back through the shared DRAM channel, while the array computes. The memory model
// decides what moves when (one request per op in the fast fidelity, one per tile transfer
// in the cycle fidelity); the engine books it and counts the bytes per operand.
#include <array>
#include <systemc>

#include "models/dram_channel.h"
#include "sim/spec/op_stats.h"

namespace trainsim {

class DmaEngine {
 public:
  explicit DmaEngine(DramChannel& dram);
  /// Issues the op's DRAM traffic at `issue` as one request and counts it; returns when the
  /// last byte has arrived.
  sc_core::sc_time move(const sc_core::sc_time& issue, const OpStats& op);
  /// Issues `bytes` at `issue` without counting them (count() does, per operand, once the op
  /// is done); returns when the last byte has arrived.
  sc_core::sc_time transfer(const sc_core::sc_time& issue, std::int64_t bytes) {
    return dram_.transfer(issue, bytes);
  }
  void count(const OpStats& op);
  void reset();

  std::int64_t read_bytes() const;
  std::int64_t write_bytes() const;

 private:
  DramChannel& dram_;
  std::array<std::int64_t, kNumOperands> read_bytes_{}, write_bytes_{};
};

}  // namespace trainsim
