#pragma once
// The simulated system: the op driver, the accelerator and the DRAM channel, wired once
// per process (SystemC allows elaboration only once) and reconfigured per run.
//
//   training loop --(batch of OpRequest)--> OpDriver --TLM b_transport--> Accelerator
//                                                                          |- PeArray
//                                                                          |- GlobalBuffer
//                                                                          `- DmaEngine -->
//                                                                          DramChannel
#include <memory>
#include <string>
#include <vector>

#include "models/accelerator.h"
#include "models/dram_channel.h"
#include "models/op_driver.h"

namespace trainsim {

class SimSystem {
 public:
  /// The process-wide system, elaborated on first use.
  static SimSystem& instance();

  /// Sets accelerator, dataflow and fidelity and resets all counters. `vcd_path` (cycle
  /// fidelity) opens a waveform of the array's activity; it can only be opened before the
  /// first run of the process.
  void configure(const AcceleratorSpec& acc, const Dataflow& df, Fidelity fidelity,
                 const std::string& vcd_path = "");
  /// Executes the requests in order; simulated time advances by their cycles.
  void run(std::vector<OpRequest>& batch);
  /// Flushes and closes the waveform, if any.
  void close_trace();

  Accelerator& accelerator() { return accel_; }
  DramChannel& dram() { return dram_; }
  /// Accelerator cycles elapsed since configure().
  std::int64_t cycles() const;

 private:
  SimSystem();
  DramChannel dram_;
  Accelerator accel_;
  OpDriver driver_;
  sc_core::sc_trace_file* trace_ = nullptr;
  sc_core::sc_time epoch_start_;
  bool started_ = false;
};

}  // namespace trainsim
