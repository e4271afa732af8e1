#include "sim/core/interrupt.h"

#include <signal.h>

#include <csignal>

namespace trainsim {

namespace {
volatile std::sig_atomic_t g_interrupted = 0;
extern "C" void on_signal(int) {
  g_interrupted = 1;
  // SA_RESETHAND resets only the signal that arrived: a Ctrl-C followed by a SIGTERM (or the
  // reverse) must end the process too. signal() is async-signal-safe.
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
}
}  // namespace

void install_interrupt_handler() {
  // The first signal sets the flag, and its handler is reset (SA_RESETHAND): a second Ctrl-C
  // or SIGTERM ends the process at once, also in a stretch of work that polls too rarely.
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART | SA_RESETHAND;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

bool interrupt_requested() {
  return g_interrupted != 0;
}

}  // namespace trainsim
