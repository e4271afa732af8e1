#pragma once
// The initiator that feeds ops to an accelerator: the boundary between the training loop
// (plain C++, outside simulated time) and the SystemC model. The caller queues a batch of
// requests and runs the kernel; the driver's thread issues them in order over TLM,
// accumulating the annotated delays as its local time (temporal decoupling), and
// synchronises once at the end of the batch, so simulated time advances by the batch's
// cycles and the kernel returns when the batch is done.
//
// The thread is spawned when the driver is built and ends when it is destroyed, so a
// process can build drivers at any time (models/sc_kernel.h).
#include <exception>
#include <systemc>
#include <tlm>
#include <utility>
#include <vector>

#include "models/accelerator.h"

namespace trainsim {

class OpDriver {
 public:
  /// Issues ops to `target`, which must outlive the driver.
  explicit OpDriver(tlm::tlm_fw_transport_if<>& target);
  ~OpDriver();
  OpDriver(const OpDriver&) = delete;
  OpDriver& operator=(const OpDriver&) = delete;

  /// Queues `batch` for the next run of the kernel; the vector must outlive it. With
  /// `sync_each_op` the driver waits out every op before issuing the next, so units running
  /// side by side book the shared DRAM channel in time order (a quantum of one op).
  void submit(std::vector<OpRequest>& batch, bool sync_each_op = false);
  /// An exception an op threw while the batch ran (rethrown by the caller, outside the
  /// SystemC kernel, which would otherwise turn it into an sc_report).
  std::exception_ptr take_error() { return std::exchange(error_, nullptr); }

 private:
  void run();
  tlm::tlm_fw_transport_if<>& target_;
  sc_core::sc_event work_;
  tlm::tlm_generic_payload trans_;
  std::vector<OpRequest>* batch_ = nullptr;
  bool sync_each_op_ = false;
  bool stopping_ = false;
  std::exception_ptr error_;
};

}  // namespace trainsim
