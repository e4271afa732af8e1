#pragma once
// A bandwidth-limited resource that several units share: the DRAM channel, the global
// buffer's port. Transfers are served first come, first served: a transfer occupies the
// channel for ceil(units / units-per-cycle) cycles and completes `latency` cycles after its
// last unit starts (latency is pipelined, occupancy is not). Timing is loosely timed:
// callers pass the time at which they issue (their local time, possibly ahead of
// sc_time_stamp()) and get the completion time back, so nobody has to wait() per transfer.
#include <systemc>

#include "sim/core/checked_span.h"

namespace trainsim {

class SharedChannel {
 public:
  /// units_per_cycle <= 0: unlimited (transfers complete at once, after the latency).
  /// `blame` names the key a transfer's occupancy past 2^62 cycles is an error of.
  void configure(double units_per_cycle, std::int64_t latency_cycles, sc_core::sc_time period,
                 const SpanBlame& blame);

  /// Reserves the channel for `units` issued at `issue`; returns the completion time.
  sc_core::sc_time transfer(const sc_core::sc_time& issue, std::int64_t units);

  bool limited() const { return units_per_cycle_ > 0; }
  std::int64_t units_moved() const { return units_moved_; }
  std::int64_t busy_cycles() const { return busy_cycles_; }
  /// Cycles transfers waited because another transfer held the channel.
  std::int64_t contention_cycles() const { return contention_cycles_; }
  /// Sets the counters (a run resumed from a checkpoint continues its sums); the channel
  /// must be idle.
  void restore_counters(std::int64_t units, std::int64_t busy, std::int64_t contention) {
    units_moved_ = units, busy_cycles_ = busy, contention_cycles_ = contention;
  }

 private:
  sc_core::sc_time period_;
  SpanBlame blame_;
  double units_per_cycle_ = 0;
  std::int64_t latency_cycles_ = 0;
  sc_core::sc_time busy_until_;
  std::int64_t units_moved_ = 0, busy_cycles_ = 0, contention_cycles_ = 0;
};

}  // namespace trainsim
