#include "models/sim_time.h"

#include <cstdio>
#include <string>

#include "sim/core/error.h"

namespace trainsim {

namespace {

// Picoseconds per unit of sc_time's value. SystemC fixes its resolution once the first time
// is made, long before any of these is called, so it is read once.
double resolution_ps() {
  static const double ps = sc_core::sc_get_time_resolution().to_seconds() * 1e12;
  return ps;
}

}  // namespace

sc_core::sc_time after_cycles(const sc_core::sc_time& from, double cycles,
                              const sc_core::sc_time& period) {
  const double period_ps = period.to_double() * resolution_ps();
  const double end_ps = from.to_double() * resolution_ps() + cycles * period_ps;
  if (__builtin_expect(!(cycles >= 0 && end_ps < kMaxSimPs), 0)) {
    char msg[512];
    std::snprintf(msg, sizeof msg,
                  "accelerator.clock_ghz: at %g GHz (a %g ps period) the simulated time would "
                  "pass 2^63 ps (106.8 days, %.3g cycles), the most the SystemC model counts: "
                  "a faster clock or memory (accelerator.dram.bandwidth_gbps), or fewer "
                  "training.epochs",
                  1000.0 / period_ps, period_ps, kMaxSimPs / period_ps);
    throw UserError(msg);
  }
  return from + cycles * period;
}

sc_core::sc_time after_ps(const sc_core::sc_time& from, std::int64_t ps) {
  if (__builtin_expect(
          !(ps >= 0 && from.to_double() * resolution_ps() + static_cast<double>(ps) < kMaxSimPs),
          0))
    throw UserError(
        "system: the simulated time would pass 2^63 ps (106.8 days), the most the SystemC "
        "platform counts: faster devices (accelerator.clock_ghz) or links "
        "(system.link.bandwidth_gbps), or a smaller training.batch_size");
  return from + sc_core::sc_time(static_cast<double>(ps), sc_core::SC_PS);
}

}  // namespace trainsim
