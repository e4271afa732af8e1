#pragma once
// The DRAM channel: one per system, shared by every unit that moves data (the main array's
// DMA now; ADA-GP's predictor unit and the spec-BP unit later). Transfers are served first
// come, first served at the channel's bandwidth: a transfer occupies the channel for
// ceil(bytes / bytes-per-cycle) cycles and completes `latency` cycles after its last byte
// starts (latency is pipelined, occupancy is not). Timing is loosely timed: callers pass the
// time at which they issue (their local time, possibly ahead of sc_time_stamp()) and get
// the completion time back, so nobody has to wait() per transfer.
#include <systemc>

#include "sim/accel/accel_spec.h"

namespace trainsim {

class DramChannel : public sc_core::sc_module {
 public:
  DramChannel(sc_core::sc_module_name name, const AcceleratorSpec& acc);
  void configure(const AcceleratorSpec& acc);

  /// Reserves the channel for `bytes` issued at `issue`; returns the completion time.
  sc_core::sc_time transfer(const sc_core::sc_time& issue, std::int64_t bytes);

  std::int64_t bytes_moved() const { return bytes_moved_; }
  std::int64_t busy_cycles() const { return busy_cycles_; }
  /// Cycles transfers waited because another transfer held the channel.
  std::int64_t contention_cycles() const { return contention_cycles_; }

 private:
  sc_core::sc_time period_;
  double bytes_per_cycle_ = 1;
  std::int64_t latency_cycles_ = 0;
  sc_core::sc_time busy_until_;
  std::int64_t bytes_moved_ = 0, busy_cycles_ = 0, contention_cycles_ = 0;
};

/// One accelerator clock period.
sc_core::sc_time clock_period(const AcceleratorSpec& acc);

}  // namespace trainsim
