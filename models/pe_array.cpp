#include "models/pe_array.h"

#include "models/dram_channel.h"

namespace trainsim {

PeArray::PeArray(sc_core::sc_module_name name) : sc_module(name) {}

void PeArray::configure(const AcceleratorSpec& acc) {
  period_ = clock_period(acc);
  busy_cycles_ = 0;
}

void PeArray::run_clocked(ArrayEngine& engine) {
  busy_ = true;
  while (engine.step()) {
    active_pes_ = engine.active_pes();
    fold_ = engine.fold();
    ++busy_cycles_;
    sc_core::wait(period_);
  }
  busy_ = false;
  active_pes_ = 0;
}

void PeArray::trace(sc_core::sc_trace_file* tf) {
  sc_core::sc_trace(tf, busy_, std::string(name()) + ".busy");
  sc_core::sc_trace(tf, active_pes_, std::string(name()) + ".active_pes");
  sc_core::sc_trace(tf, fold_, std::string(name()) + ".fold");
}

}  // namespace trainsim
