#pragma once
// The initiator that feeds ops to the accelerator: the boundary between the training loop
// (plain C++, outside simulated time) and the SystemC model. The caller queues a batch of
// requests and calls sc_start(); the driver's thread issues them in order over TLM,
// accumulating the annotated delays as its local time (temporal decoupling), and
// synchronises once at the end of the batch, so simulated time advances by the batch's
// cycles and sc_start() returns when the batch is done.
#include <tlm_utils/simple_initiator_socket.h>
#include <exception>
#include <systemc>
#include <tlm>
#include <utility>
#include <vector>

#include "models/accelerator.h"

namespace trainsim {

class OpDriver : public sc_core::sc_module {
 public:
  tlm_utils::simple_initiator_socket<OpDriver> socket;

  explicit OpDriver(sc_core::sc_module_name name);
  /// Queues `batch` for the next sc_start(); the vector must outlive it. With
  /// `sync_each_op` the driver waits out every op before issuing the next, so units running
  /// side by side book the shared DRAM channel in time order (a quantum of one op).
  void submit(std::vector<OpRequest>& batch, bool sync_each_op = false);
  /// An exception an op threw while the batch ran (rethrown by SimSystem::run, outside the
  /// SystemC kernel, which would otherwise turn it into an sc_report).
  std::exception_ptr take_error() { return std::exchange(error_, nullptr); }

 private:
  void run();
  sc_core::sc_event work_;
  // A member, not a local of run(): run() never returns (SystemC frees its stack at exit
  // without unwinding it), so a local payload's destructor never ran and the extension
  // array its constructor allocates leaked (32 bytes, found by LeakSanitizer).
  tlm::tlm_generic_payload trans_;
  std::vector<OpRequest>* batch_ = nullptr;
  bool sync_each_op_ = false;
  std::exception_ptr error_;
};

}  // namespace trainsim
