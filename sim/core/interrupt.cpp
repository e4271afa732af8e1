#include "sim/core/interrupt.h"

#include <csignal>

namespace trainsim {

namespace {
volatile std::sig_atomic_t g_interrupted = 0;
extern "C" void on_signal(int) {
  g_interrupted = 1;
}
}  // namespace

void install_interrupt_handler() {
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
}

bool interrupt_requested() {
  return g_interrupted != 0;
}

}  // namespace trainsim
