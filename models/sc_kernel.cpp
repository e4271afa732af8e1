#include "models/sc_kernel.h"

#include <cstdlib>
#include <systemc>

#include "models/sc_asan.h"

namespace trainsim {

void prepare_kernel() {
  // SystemC prints a banner when its kernel starts unless told not to.
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
  // Informational reports (e.g. the trace timescale) go to stdout, where they would corrupt
  // --json output; warnings and errors still show.
  sc_core::sc_report_handler::set_actions(sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
}

bool kernel_started() {
  return sc_core::sc_start_of_simulation_invoked();
}

void start_kernel() {
  if (kernel_started()) return;
  prepare_kernel();
  sc_core::sc_start(sc_core::SC_ZERO_TIME);  // finish elaboration, start the threads
  restore_main_stack_for_asan();
}

void run_kernel() {
  start_kernel();
  sc_core::sc_start();
  restore_main_stack_for_asan();
}

}  // namespace trainsim
