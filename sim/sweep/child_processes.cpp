#include "sim/sweep/child_processes.h"

#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <stdexcept>

namespace trainsim {

namespace {
// Process groups of the running children, for the signal handler (0 = free slot).
volatile pid_t g_children[kMaxChildren] = {};
volatile std::sig_atomic_t g_interrupts = 0;

extern "C" void on_sweep_signal(int) {
  if (++g_interrupts >= 2)
    for (int i = 0; i < kMaxChildren; ++i)
      if (g_children[i] > 0) ::kill(-g_children[i], SIGTERM);
}

}  // namespace

void track_child_group(pid_t pid) {
  for (int i = 0; i < kMaxChildren; ++i)
    if (g_children[i] == 0) {
      g_children[i] = pid;
      return;
    }
}

void untrack_child_group(pid_t pid) {
  for (int i = 0; i < kMaxChildren; ++i)
    if (g_children[i] == pid) g_children[i] = 0;
}

void install_sweep_interrupt_handler() {
  struct sigaction sa {};
  sa.sa_handler = on_sweep_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;  // poll is not restarted (EINTR): the caller checks its count
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

int sweep_interrupts() {
  return g_interrupts;
}

bool write_all(int fd, const std::string& text) {
  std::size_t off = 0;
  while (off < text.size()) {
    const ssize_t n = ::write(fd, text.data() + off, text.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    off += static_cast<std::size_t>(n);
  }
  return true;
}

std::string self_executable() {
  char buf[4096];
  const ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) throw std::runtime_error("cannot find the trainsim executable (/proc/self/exe)");
  buf[n] = '\0';
  return buf;
}

}  // namespace trainsim
