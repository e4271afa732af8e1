#include "models/pe_array.h"

#include "models/dram_channel.h"
#include "sim/core/interrupt.h"

namespace trainsim {

void PeArray::configure(const AcceleratorSpec& acc) {
  period_ = clock_period(acc);
  busy_cycles_ = 0;
}

void PeArray::run_clocked(ArrayEngine& engine) {
  busy_ = true;
  // Quantum keeper: the engine is stepped once per clock, but the kernel is synchronised
  // every `quantum` clocks (a wait costs about as much as a step). Nothing else touches the
  // array during an op, so the result is the same for any quantum; with a waveform open the
  // quantum is 1, so every cycle appears in it.
  const int quantum = traced_ ? 1 : kQuantum;
  int pending = 0;
  while (engine.step()) {
    if (traced_) {  // these can cost as much as the step itself: only for the waveform
      active_pes_ = engine.active_pes();
      fold_ = engine.fold();
    }
    ++busy_cycles_;
    if (++pending == quantum) {
      sc_core::wait(static_cast<double>(pending) * period_);
      pending = 0;
      check_interrupt();  // one op clocks for as long as its size asks
    }
  }
  if (pending > 0) sc_core::wait(static_cast<double>(pending) * period_);
  busy_ = false;
  active_pes_ = 0;
}

void PeArray::trace(sc_core::sc_trace_file* tf) {
  traced_ = true;
  sc_core::sc_trace(tf, busy_, name_ + ".busy");
  sc_core::sc_trace(tf, active_pes_, name_ + ".active_pes");
  sc_core::sc_trace(tf, fold_, name_ + ".fold");
}

}  // namespace trainsim
