#include "sim/sweep/process_pool.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <stdexcept>

#include "sim/core/error.h"

extern char** environ;

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

void remember(pid_t pid) {
  for (int i = 0; i < kMaxChildren; ++i)
    if (g_children[i] == 0) {
      g_children[i] = pid;
      return;
    }
}

void forget(pid_t pid) {
  for (int i = 0; i < kMaxChildren; ++i)
    if (g_children[i] == pid) g_children[i] = 0;
}
}  // namespace

void install_sweep_interrupt_handler() {
  struct sigaction sa {};
  sa.sa_handler = on_sweep_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;  // waitpid goes on waiting: the children end, or get SIGTERM
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

int sweep_interrupts() {
  return g_interrupts;
}

std::string self_executable() {
  char buf[4096];
  const ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) throw std::runtime_error("cannot find the trainsim executable (/proc/self/exe)");
  buf[n] = '\0';
  return buf;
}

void ProcessPool::spawn(const std::vector<std::string>& argv, const std::string& stderr_path,
                        int tag) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 2, stderr_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  // A process group of its own: the terminal's Ctrl-C goes to the sweep, not the points.
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attr, 0);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, args[0], &actions, &attr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) throw std::runtime_error("cannot start '" + argv[0] + "': " + std::strerror(rc));
  children_.push_back({pid, tag});
  remember(pid);
}

bool ProcessPool::wait_one(ChildExit& out) {
  if (children_.empty()) return false;
  for (;;) {
    int status = 0;
    const pid_t pid = ::waitpid(-1, &status, 0);
    if (pid < 0) {
      if (errno == EINTR) continue;  // a Ctrl-C: the caller checks its flag after we return
      throw std::runtime_error(std::string("waitpid: ") + std::strerror(errno));
    }
    if (reap(pid, status, out)) return true;
  }
}

bool ProcessPool::try_wait(ChildExit& out) {
  for (const Child& c : children_) {
    int status = 0;
    if (::waitpid(c.pid, &status, WNOHANG) == c.pid) return reap(c.pid, status, out);
  }
  return false;
}

bool ProcessPool::reap(pid_t pid, int status, ChildExit& out) {
  for (std::size_t i = 0; i < children_.size(); ++i) {
    if (children_[i].pid != pid) continue;
    out.tag = children_[i].tag;
    out.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    forget(pid);
    children_.erase(children_.begin() + static_cast<std::ptrdiff_t>(i));
    return true;
  }
  return false;  // not ours (the MPI runtime's own helpers, if any)
}

void ProcessPool::signal_all(int signal) {
  for (const Child& c : children_) ::kill(-c.pid, signal);
}

}  // namespace trainsim
