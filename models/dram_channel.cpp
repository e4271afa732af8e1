#include "models/dram_channel.h"

#include <cmath>

namespace trainsim {

using sc_core::sc_time;

sc_time clock_period(const AcceleratorSpec& acc) {
  return sc_time(1000.0 / acc.clock_ghz, sc_core::SC_PS);
}

DramChannel::DramChannel(sc_core::sc_module_name name, const AcceleratorSpec& acc)
    : sc_module(name) {
  configure(acc);
}

void DramChannel::configure(const AcceleratorSpec& acc) {
  period_ = clock_period(acc);
  bytes_per_cycle_ = acc.dram_bytes_per_cycle();
  latency_cycles_ = acc.dram.latency_cycles;
  busy_until_ = sc_core::SC_ZERO_TIME;
  bytes_moved_ = busy_cycles_ = contention_cycles_ = 0;
}

sc_time DramChannel::transfer(const sc_time& issue, std::int64_t bytes) {
  if (bytes <= 0) return issue;
  const auto occupancy =
      static_cast<std::int64_t>(std::ceil(static_cast<double>(bytes) / bytes_per_cycle_));
  const sc_time start = issue > busy_until_ ? issue : busy_until_;
  contention_cycles_ += static_cast<std::int64_t>((start - issue) / period_ + 0.5);
  busy_until_ = start + static_cast<double>(occupancy) * period_;
  bytes_moved_ += bytes;
  busy_cycles_ += occupancy;
  return busy_until_ + static_cast<double>(latency_cycles_) * period_;
}

}  // namespace trainsim
