#include "models/op_driver.h"

#include "models/sc_kernel.h"
#include "sim/core/interrupt.h"

namespace trainsim {

OpDriver::OpDriver(tlm::tlm_fw_transport_if<>& target) : target_(target) {
  prepare_kernel();
  sc_core::sc_spawn([this] { run(); });
}

OpDriver::~OpDriver() {
  // The thread waits for work; let it return, so the kernel drops the process before the
  // members it refers to go. It has not run at all when the kernel never started: starting
  // it here lets the thread see the stop at once.
  stopping_ = true;
  work_.notify(sc_core::SC_ZERO_TIME);
  try {
    run_kernel();
  } catch (...) {
    // A destructor cannot report; the thread had nothing to do but return.
  }
}

void OpDriver::submit(std::vector<OpRequest>& batch, bool sync_each_op) {
  batch_ = &batch;
  sync_each_op_ = sync_each_op;
  work_.notify(sc_core::SC_ZERO_TIME);
}

void OpDriver::run() {
  for (;;) {
    sc_core::wait(work_);
    if (stopping_) return;
    sc_core::sc_time local = sc_core::SC_ZERO_TIME;
    try {
      for (OpRequest& req : *batch_) {
        check_interrupt();  // an op can take seconds (a large op in cycle fidelity)
        trans_.set_command(tlm::TLM_WRITE_COMMAND);
        trans_.set_data_ptr(reinterpret_cast<unsigned char*>(&req));
        trans_.set_data_length(sizeof(OpRequest));
        trans_.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
        target_.b_transport(trans_, local);
        if (sync_each_op_) {
          sc_core::wait(local);
          local = sc_core::SC_ZERO_TIME;
        }
      }
    } catch (...) {
      error_ = std::current_exception();
    }
    sc_core::wait(local);  // synchronise: simulated time catches up with the batch
    batch_ = nullptr;
  }
}

}  // namespace trainsim
