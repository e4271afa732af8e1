#pragma once
// The PE array. In cycle fidelity it is clocked: run_clocked() steps the dataflow's
// register-level engine once per clock and advances simulated time by one period per step
// (synchronising with the kernel every kQuantum clocks, or every clock when a waveform is
// traced, so the waveform shows the array's activity cycle by cycle). In fast fidelity the array is
// not stepped at all: the accelerator top advances time by the closed-form cycle count.
// One process for the whole array, never one per PE (10-20x faster).
#include <string>
#include <systemc>
#include <utility>

#include "dataflows/dataflow.h"

namespace trainsim {

class PeArray {
 public:
  /// Clocks between synchronisations with the SystemC kernel when no waveform is traced.
  static constexpr int kQuantum = 64;

  /// `name` prefixes its signals in a waveform.
  explicit PeArray(std::string name) : name_(std::move(name)) {}
  void configure(const AcceleratorSpec& acc);
  /// Runs `engine` to completion, one clock per step; call from a SystemC thread.
  void run_clocked(ArrayEngine& engine);
  /// Adds the array's activity signals to a waveform.
  void trace(sc_core::sc_trace_file* tf);

  std::int64_t busy_cycles() const { return busy_cycles_; }

 private:
  std::string name_;
  sc_core::sc_time period_;
  // Traced by value at every time step (plain members: cheaper than signals).
  bool traced_ = false;
  bool busy_ = false;
  int active_pes_ = 0;
  std::int64_t fold_ = 0;
  std::int64_t busy_cycles_ = 0;
};

}  // namespace trainsim
