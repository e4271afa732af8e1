#pragma once
// The DRAM channel: one per system, shared by every unit that moves data (the main array's
// DMA, the second unit's). A SharedChannel whose units are bytes, at the accelerator's DRAM
// bandwidth and latency.
#include "models/shared_channel.h"
#include "sim/spec/accel_spec.h"

namespace trainsim {

class DramChannel : public SharedChannel {
 public:
  explicit DramChannel(const AcceleratorSpec& acc);
  void configure(const AcceleratorSpec& acc);
  std::int64_t bytes_moved() const { return units_moved(); }
};

/// The global buffer's port, shared by the units that read and write the buffer. Its units
/// are words; unlimited unless buffer.port_words_per_cycle is set.
class BufferPort : public SharedChannel {
 public:
  explicit BufferPort(const AcceleratorSpec& acc);
  void configure(const AcceleratorSpec& acc);
};

/// One accelerator clock period.
sc_core::sc_time clock_period(const AcceleratorSpec& acc);

}  // namespace trainsim
