#include "models/op_driver.h"

#include "sim/core/interrupt.h"

namespace trainsim {

OpDriver::OpDriver(sc_core::sc_module_name name) : sc_module(name), socket("socket") {
  SC_HAS_PROCESS(OpDriver);
  SC_THREAD(run);
}

void OpDriver::submit(std::vector<OpRequest>& batch, bool sync_each_op) {
  batch_ = &batch;
  sync_each_op_ = sync_each_op;
  work_.notify(sc_core::SC_ZERO_TIME);
}

void OpDriver::run() {
  tlm::tlm_generic_payload& trans = trans_;
  for (;;) {
    sc_core::wait(work_);
    sc_core::sc_time local = sc_core::SC_ZERO_TIME;
    try {
      for (OpRequest& req : *batch_) {
        check_interrupt();  // an op can take seconds (a large op in cycle fidelity)
        trans.set_command(tlm::TLM_WRITE_COMMAND);
        trans.set_data_ptr(reinterpret_cast<unsigned char*>(&req));
        trans.set_data_length(sizeof(OpRequest));
        trans.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
        socket->b_transport(trans, local);
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
