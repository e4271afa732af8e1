#pragma once
// The simulated system: the op drivers, the accelerator, a second unit and the DRAM
// channel, wired once per process (SystemC allows elaboration only once) and reconfigured
// per run. The second unit (a technique's own compute unit, e.g. speculative backprop's
// backward array) has its own PE array and DMA; both DMAs share the one DRAM channel.
// clang-format off
//
//   training loop --ops--> OpDriver  --TLM b_transport--> Accelerator --+-- PeArray, GlobalBuffer
//                                                                       `-- DmaEngine --> DramChannel
//                 --ops--> OpDriver2 --TLM b_transport--> second unit --+-- PeArray, GlobalBuffer
//                                                                       `-- DmaEngine --^
// clang-format on
#include <array>
#include <cstdint>
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
  /// Sets up the second unit (same dataflow and fidelity as the main one).
  void configure_second_unit(const AcceleratorSpec& acc);
  /// Runs `main` on the accelerator and `second` on the second unit at the same time;
  /// returns when both are done. Both book the shared DRAM channel op by op, in time order.
  void run_parallel(std::vector<OpRequest>& main, std::vector<OpRequest>& second);
  /// Ends elaboration if no run has yet: the platform of several devices
  /// (models/platform/) spawns its processes into a started kernel.
  void ensure_started();
  /// Flushes and closes the waveform, if any.
  void close_trace();

  Accelerator& accelerator() { return accel_; }
  Accelerator& second_unit() { return unit2_; }
  DramChannel& dram() { return dram_; }
  BufferPort& buffer_port() { return port_; }
  /// Accelerator cycles elapsed since configure().
  std::int64_t cycles() const;

  /// What carries from one run to the next and decides later runs' results. A run returns
  /// when every transfer has completed, so only simulated time and the shared channels'
  /// counters do: checkpoints save this, and a repeated flush of the same ops
  /// (AcceleratorSession) replays its delta. The units' own tallies (Accelerator::totals(),
  /// the buffer's and DMA's counts) count the work the model executed, which a replay does
  /// not; nothing downstream of a session reads them (the session's sums are the run's
  /// record).
  struct Carried {
    std::int64_t cycles = 0;
    std::array<std::array<std::int64_t, 3>, 2>
        channels{};  // dram, buffer port: units, busy, contention
  };
  Carried carried() const;
  /// Moves to `state`: simulated time forward (never back: a UserError), counters set.
  void restore(const Carried& state);

 private:
  SimSystem();
  DramChannel dram_;
  BufferPort port_;
  Accelerator accel_;
  OpDriver driver_;
  Accelerator unit2_;
  OpDriver driver2_;
  sc_core::sc_trace_file* trace_ = nullptr;
  sc_core::sc_time epoch_start_;
  bool started_ = false;
};

}  // namespace trainsim
