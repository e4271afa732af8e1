#pragma once
// Ctrl-C handling: the first SIGINT/SIGTERM sets a flag that long loops poll, so a run can
// stop between batches and remove its half-written output instead of leaving it behind.
#include <stdexcept>

namespace trainsim {

class Interrupted : public std::runtime_error {
 public:
  Interrupted() : std::runtime_error("interrupted") {}
};

void install_interrupt_handler();
bool interrupt_requested();
/// Throws Interrupted if a signal arrived.
inline void check_interrupt() {
  if (interrupt_requested()) throw Interrupted();
}

inline constexpr int kExitInterrupted = 130;

}  // namespace trainsim
