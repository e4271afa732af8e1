#pragma once
// The accelerator top. Ops arrive as TLM-2.0 loosely-timed transactions (b_transport with
// delay annotation, the forward interface of a TLM target): the payload's data pointer
// carries an OpRequest. The top is a plain object implementing that interface, not a module
// with a bound socket: sockets can only be bound during elaboration, and a process builds
// devices whenever a run needs one (models/sc_kernel.h).
// We chose TLM LT over an sc_fifo of descriptors because in fast fidelity an op then costs
// one function call and no context switch: the top computes the op's cost, books its DRAM
// traffic on the shared channel at the caller's local time, and annotates the delay. That
// keeps timing nearly free next to the numerics (one training run issues millions of ops),
// while units that share the channel still see each other's traffic.
//
// In cycle fidelity the top synchronises (waits out the annotated delay), then runs the
// memory model's schedule in SystemC time: the PE array clocked through the dataflow's
// engine with the real operand values, tile by tile, and the DMA's transfers booked on the
// shared channel as the schedule issues them (models/cycle_context.h).
#include <memory>
#include <string>
#include <systemc>
#include <tlm>

#include "models/dma_engine.h"
#include "models/global_buffer.h"
#include "models/pe_array.h"
#include "sim/accel/cost_model.h"
#include "sim/accel/fidelity.h"
#include "sim/accel/memory_model.h"

namespace trainsim {

/// What one transaction carries. `values` is required in cycle fidelity (the real
/// operands, layout per Dataflow::gemm_based()); `result` receives the array's output.
struct OpRequest {
  Op op;
  const OperandValues* values = nullptr;
  std::vector<double> result;  ///< cycle fidelity: the numeric output
  OpStats stats;               ///< filled by the accelerator (stall as measured)
  /// When it started and ended: the kernel's time as the accelerator ran it, which the node
  /// turns into its own clock's (AcceleratorNode::run).
  sc_core::sc_time start, end;
};

class Accelerator final : public tlm::tlm_fw_transport_if<> {
 public:
  /// `dram` and `port` are shared with the device's other units; `name` prefixes the
  /// array's signals in a waveform.
  Accelerator(const std::string& name, DramChannel& dram, BufferPort& port);
  void configure(const AcceleratorSpec& acc, const Dataflow& df, Fidelity fidelity);
  void trace(sc_core::sc_trace_file* tf) { array_.trace(tf); }

  /// Sum of every op executed since configure().
  const OpStats& totals() const { return totals_; }
  const AcceleratorSpec& spec() const { return acc_; }
  const Dataflow& dataflow() const { return *df_; }
  Fidelity fidelity() const { return fidelity_; }
  CostModel& cost_model() { return *cost_; }

  /// Executes the OpRequest `trans` carries, `delay` past the caller's local time, and adds
  /// the op's time to `delay`.
  void b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay) override;
  /// The rest of the interface: ops are only ever transported blocking.
  tlm::tlm_sync_enum nb_transport_fw(tlm::tlm_generic_payload& trans, tlm::tlm_phase& phase,
                                     sc_core::sc_time& delay) override;
  bool get_direct_mem_ptr(tlm::tlm_generic_payload& trans, tlm::tlm_dmi& dmi) override;
  unsigned int transport_dbg(tlm::tlm_generic_payload& trans) override;

 private:
  void execute_fast(OpRequest& req, sc_core::sc_time& delay);
  void execute_cycle(OpRequest& req, sc_core::sc_time& delay);

  PeArray array_;
  GlobalBuffer buffer_;
  DmaEngine dma_;
  BufferPort& port_;
  AcceleratorSpec acc_;
  const Dataflow* df_ = nullptr;
  Fidelity fidelity_ = Fidelity::kFast;
  const MemoryModel* memory_ = nullptr;
  std::unique_ptr<CostModel> cost_;
  sc_core::sc_time period_;
  OpStats totals_;
};

}  // namespace trainsim
