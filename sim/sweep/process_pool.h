#pragma once
// Child processes for sweep points: each point runs as its own `trainsim run` (isolated: a
// crash or a leak in one point cannot touch another), in its own process group so that a
// Ctrl-C on the terminal reaches the sweep only (which then lets the running points finish).
// Children are killed by the kernel when the sweep process dies (PR_SET_PDEATHSIG).
#include <sys/types.h>

#include <string>
#include <vector>

namespace trainsim {

struct ChildExit {
  int tag = -1;        ///< what the caller passed to spawn()
  int exit_code = -1;  ///< -1: killed by a signal
};

class ProcessPool {
 public:
  /// Starts `argv` (argv[0] a path) with stdout to /dev/null and stderr to `stderr_path`.
  void spawn(const std::vector<std::string>& argv, const std::string& stderr_path, int tag);
  /// Waits for any child to end; false if none is running.
  bool wait_one(ChildExit& out);
  /// The same without waiting: false if no child has ended (yet).
  bool try_wait(ChildExit& out);
  /// Sends `signal` to every running child's process group.
  void signal_all(int signal);
  std::size_t running() const { return children_.size(); }

 private:
  struct Child {
    pid_t pid;
    int tag;
  };
  bool reap(pid_t pid, int status, ChildExit& out);
  std::vector<Child> children_;
};

/// Ctrl-C for a sweep: the first SIGINT (or SIGTERM) asks it to stop starting points and
/// let the running ones finish; the second stops the running ones at once (the handler
/// sends SIGTERM to their process groups itself: the sweep is blocked in waitpid then).
void install_sweep_interrupt_handler();
/// How many SIGINT / SIGTERM arrived since install_sweep_interrupt_handler().
int sweep_interrupts();

/// The most children a pool runs at once (the handler's table of process groups).
inline constexpr int kMaxChildren = 256;

/// The path of the running executable (/proc/self/exe).
std::string self_executable();

}  // namespace trainsim
