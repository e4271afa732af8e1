#pragma once
// SystemC time in the accelerator's models is 64-bit picoseconds whose arithmetic does not
// check for overflow (sc_time's += and *= wrap silently: at clock_ghz 1e-8 a run's stalls
// came out negative). Every time the models form from a number of clock cycles goes through
// after_cycles, which refuses to pass kMaxSimPs with a one-line error naming the clock.
#include <cstdint>
#include <systemc>

namespace trainsim {

/// 2^63 ps (106.8 days): the latest simulated time a run may reach, half of what sc_time
/// holds, so that the sum of two such times is still exact.
inline constexpr double kMaxSimPs = 9223372036854775808.0;

/// `from` plus `cycles` periods of `period`; UserError ("accelerator.clock_ghz: ...") when
/// that passes kMaxSimPs or is not a number.
sc_core::sc_time after_cycles(const sc_core::sc_time& from, double cycles,
                              const sc_core::sc_time& period);

/// The same for the multi-device platform, whose times are picoseconds: `from` plus `ps`;
/// UserError ("system: ...") past kMaxSimPs.
sc_core::sc_time after_ps(const sc_core::sc_time& from, std::int64_t ps);

}  // namespace trainsim
