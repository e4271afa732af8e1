#pragma once
// What a sweep knows of the processes that run its points (sim/sweep/worker_pool.h): how one
// ended, their process groups for the signal handler, and Ctrl-C: the first stops starting
// points and lets the running ones finish, the second stops those too.
#include <sys/types.h>

#include <string>

namespace trainsim {

struct ChildExit {
  int tag = -1;        ///< what the caller passed with the point
  int exit_code = -1;  ///< -1: killed by a signal
};

/// The signal handler's table of the children's process groups: a second Ctrl-C sends
/// SIGTERM to every group tracked here (the sweep may be blocked waiting then).
void track_child_group(pid_t pid);
void untrack_child_group(pid_t pid);

/// Ctrl-C for a sweep: the first SIGINT (or SIGTERM) asks it to stop starting points and
/// let the running ones finish; the second stops the running ones at once (the handler
/// sends SIGTERM to their process groups itself: the sweep may be waiting for them then).
void install_sweep_interrupt_handler();
/// How many SIGINT / SIGTERM arrived since install_sweep_interrupt_handler().
int sweep_interrupts();

/// The most children a sweep runs at once (the handler's table of process groups).
inline constexpr int kMaxChildren = 256;

/// Writes all of `text` to `fd` (a pipe between the sweep and a worker), through partial
/// writes and interrupted calls; false if the other end is gone or the write fails.
bool write_all(int fd, const std::string& text);

/// The path of the running executable (/proc/self/exe).
std::string self_executable();

}  // namespace trainsim
