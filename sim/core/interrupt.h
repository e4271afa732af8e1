#pragma once
// Ctrl-C handling: the first SIGINT/SIGTERM sets a flag that long loops poll, so a run can
// stop between batches and remove its half-written output instead of leaving it behind. Every
// loop whose length the configuration sets polls it: the training loop (per batch), the
// accelerator model's op driver (per op) and PE array (per clock quantum), the multi-device
// platform (per task), the Hype-training runtime (per event), shape-only and pipeline epochs,
// and the calibration's search (per evaluation). A second signal ends the process at once.
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
