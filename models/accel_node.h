#pragma once
// One accelerator device in SystemC: its op drivers, its main accelerator, a technique's
// own unit and the DRAM channel and buffer port they share. Built per use (a run, a pipeline
// stage's costing, one query), any number per process: nothing here is process-wide but the
// SystemC kernel itself (models/sc_kernel.h). The second unit (a technique's own compute
// unit, e.g. speculative backprop's backward array) has its own PE array and DMA; both DMAs
// share the one DRAM channel.
// clang-format off
//
//   training loop --ops--> OpDriver  --TLM b_transport--> Accelerator --+-- PeArray, GlobalBuffer
//                                                                       `-- DmaEngine --> DramChannel
//                 --ops--> OpDriver2 --TLM b_transport--> second unit --+-- PeArray, GlobalBuffer
//                                                                       `-- DmaEngine --^
// clang-format on
//
// The node keeps its own clock: the simulated time it has spent running ops. The kernel's
// time is shared by every node of the process, so a node's cycles are the sum of its own
// runs, never the kernel's clock read against a start.
#include <array>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "models/accelerator.h"
#include "models/dram_channel.h"
#include "models/op_driver.h"

namespace trainsim {

class AcceleratorNode {
 public:
  /// A node for `acc` timed with `df` at `fidelity`. `vcd_path` (cycle fidelity) opens a
  /// waveform of the array's activity; only before the kernel has started, i.e. for the
  /// first node of the process to run.
  AcceleratorNode(const AcceleratorSpec& acc, const Dataflow& df, Fidelity fidelity,
                  const std::string& vcd_path = "");
  ~AcceleratorNode();
  AcceleratorNode(const AcceleratorNode&) = delete;
  AcceleratorNode& operator=(const AcceleratorNode&) = delete;

  /// Executes the requests in order; the node's time advances by their cycles.
  void run(std::vector<OpRequest>& batch);
  /// Sets up the second unit (same dataflow and fidelity as the main one).
  void configure_second_unit(const AcceleratorSpec& acc);
  /// Runs `main` on the accelerator and `second` on the second unit at the same time;
  /// returns when both are done. Both book the shared DRAM channel op by op, in time order.
  void run_parallel(std::vector<OpRequest>& main, std::vector<OpRequest>& second);
  /// Flushes and closes the waveform, if any.
  void close_trace();

  Accelerator& accelerator() { return accel_; }
  const Accelerator& accelerator() const { return accel_; }
  Accelerator& second_unit() { return unit2_; }
  const Accelerator& second_unit() const { return unit2_; }
  DramChannel& dram() { return dram_; }
  const DramChannel& dram() const { return dram_; }
  BufferPort& buffer_port() { return port_; }
  const BufferPort& buffer_port() const { return port_; }
  /// Accelerator cycles the node has run.
  std::int64_t cycles() const;
  /// The node's clock: the simulated time it has run. OpRequest::start / end are on it.
  sc_core::sc_time elapsed() const { return elapsed_; }

  /// What carries from one run to the next and decides later runs' results. A run returns
  /// when every transfer has completed, so only the node's time and the shared channels'
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
  /// Moves to `state`: the node's time forward (never back: a UserError), counters set.
  void restore(const Carried& state);

 private:
  /// Runs the kernel until the drivers are idle, adds the time it took to the node's, and
  /// puts the ops of `batches` on the node's clock.
  void run_drivers(std::initializer_list<std::vector<OpRequest>*> batches);

  // First: SystemC is told to keep quiet before any of its objects exists.
  struct Quiet {
    Quiet();
  } quiet_;
  DramChannel dram_;
  BufferPort port_;
  Accelerator accel_;
  Accelerator unit2_;
  OpDriver driver_;
  OpDriver driver2_;
  sc_core::sc_trace_file* trace_ = nullptr;
  sc_core::sc_time elapsed_;  // the node's time: the sum of its runs
};

}  // namespace trainsim
