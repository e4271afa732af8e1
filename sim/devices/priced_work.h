#pragma once
// The sum of ops a device with a model of its own (a GPU, an FPGA: sim/devices/device_model.h)
// priced one by one: what its runs report in place of an accelerator's counted events.
#include <cstdint>

namespace trainsim {

/// Work a device kind priced itself, op by op (a device with a model, DeviceSpec::model).
struct PricedWork {
  double seconds = 0;  ///< its ops one after another
  double joules = 0;   ///< static energy over `seconds` included
  double bytes = 0;    ///< device-memory traffic
  std::int64_t macs = 0, ops = 0;
  PricedWork& operator+=(const PricedWork& o);
  PricedWork times(std::int64_t n) const;
};

}  // namespace trainsim
