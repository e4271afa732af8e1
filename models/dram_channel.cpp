#include "models/dram_channel.h"

#include "sim/accel/fast_context.h"

namespace trainsim {

sc_core::sc_time clock_period(const AcceleratorSpec& acc) {
  return sc_core::sc_time(1000.0 / acc.clock_ghz, sc_core::SC_PS);
}

DramChannel::DramChannel(const AcceleratorSpec& acc) {
  configure(acc);
}

void DramChannel::configure(const AcceleratorSpec& acc) {
  SharedChannel::configure(acc.dram_bytes_per_cycle(), acc.dram.latency_cycles, clock_period(acc),
                           dram_blame(acc));
}

BufferPort::BufferPort(const AcceleratorSpec& acc) {
  configure(acc);
}

void BufferPort::configure(const AcceleratorSpec& acc) {
  SharedChannel::configure(
      acc.buffer.port_words_per_cycle, 0, clock_period(acc),
      {"accelerator.buffer.port_words_per_cycle", acc.buffer.port_words_per_cycle,
       "the buffer accesses of an op", "cycles"});
}

}  // namespace trainsim
