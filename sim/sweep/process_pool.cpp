#include "sim/sweep/process_pool.h"

#include <fcntl.h>
#include <sys/prctl.h>
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
  // Everything the child needs is prepared before fork(): after it, the child calls only
  // async-signal-safe functions.
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("cannot start '" + argv[0] + "': " + std::strerror(errno));
  if (pid == 0) {
    // A process group of its own: the terminal's Ctrl-C goes to the sweep, not the points.
    ::setpgid(0, 0);
    // A point dies with its sweep, however the sweep dies (SIGKILL included): an orphan
    // would go on writing a point that a resumed sweep runs again.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);  // the sweep died before prctl took effect
    // Close-on-exec: only the dup2'ed copies (fds 1 and 2) reach the point's process.
    const int out = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
    const int err = ::open(stderr_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (out < 0 || err < 0 || ::dup2(out, 1) < 0 || ::dup2(err, 2) < 0) ::_exit(127);
    ::execve(args[0], args.data(), environ);
    ::_exit(127);
  }
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
