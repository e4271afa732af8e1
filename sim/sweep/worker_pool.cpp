#include "sim/sweep/worker_pool.h"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "sim/core/huge_pages.h"
#include "sim/core/interrupt.h"

extern char** environ;

namespace trainsim {

namespace {

// A pipe whose two ends sit at fd 10 or above (never 0-3, which the worker's ends are
// dup2'ed onto) and close on exec (only the dup2'ed copies reach the worker).
void high_pipe(int fds[2]) {
  int raw[2];
  if (::pipe(raw) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  for (int k = 0; k < 2; ++k) {
    fds[k] = ::fcntl(raw[k], F_DUPFD_CLOEXEC, 10);
    ::close(raw[k]);
    if (fds[k] < 0) throw std::runtime_error(std::string("fcntl: ") + std::strerror(errno));
  }
}

int exit_code_of(int status) {
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// Whether this process runs one thread (/proc/self/status); false if it cannot tell.
bool single_threaded() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("Threads:", 0) == 0) return std::atoi(line.c_str() + 8) == 1;
  return false;
}

// In a forked worker, what exec would have done: caught signals back to their defaults
// (ignored ones stay ignored, except SIGPIPE, which only the sweep ignores) and the
// descriptors marked close-on-exec closed: the other workers' pipe ends among them, which
// would otherwise keep a worker's requests open after the sweep closed its end.
void as_exec_would() {
  for (int sig = 1; sig < NSIG; ++sig) {
    struct sigaction sa {};
    if (::sigaction(sig, nullptr, &sa) != 0) continue;
    const bool caught = (sa.sa_flags & SA_SIGINFO)
                            ? sa.sa_sigaction != nullptr
                            : sa.sa_handler != SIG_DFL && sa.sa_handler != SIG_IGN;
    if (caught || sig == SIGPIPE) ::signal(sig, SIG_DFL);
  }
  std::vector<int> close_on_exec;
  if (DIR* d = ::opendir("/proc/self/fd")) {
    const int own = ::dirfd(d);
    while (const dirent* e = ::readdir(d)) {
      const int fd = std::atoi(e->d_name);
      if (fd > 3 && fd != own && (::fcntl(fd, F_GETFD) & FD_CLOEXEC)) close_on_exec.push_back(fd);
    }
    ::closedir(d);
  }
  for (int fd : close_on_exec) ::close(fd);
}

}  // namespace

WorkerPool::WorkerPool(std::vector<std::string> worker_argv, std::size_t max_workers,
                       std::size_t points_per_worker)
    : argv_(std::move(worker_argv)),
      max_workers_(std::max<std::size_t>(1, max_workers)),
      points_per_worker_(std::max<std::size_t>(1, points_per_worker)) {
  // A worker that died leaves a pipe without a reader: the write must fail (EPIPE), not
  // end the sweep.
  std::signal(SIGPIPE, SIG_IGN);
}

WorkerPool::~WorkerPool() {
  // Every worker is told first, so that they wind down together rather than one after
  // another (each takes milliseconds to free its caches), then each is waited for.
  for (Worker& w : workers_) {
    ::close(w.requests);
    w.requests = -1;
  }
  while (!workers_.empty()) end_worker(workers_.size() - 1);
}

void WorkerPool::start_worker() {
  int requests[2], replies[2];
  high_pipe(requests);
  high_pipe(replies);
  // Everything the child needs is prepared before fork(): after it, a child that execs
  // calls only async-signal-safe functions. (A sanitizer build execs, so that LeakSanitizer
  // checks the worker as it exits.)
  std::vector<char*> args;
  for (const std::string& a : argv_) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
#ifdef __SANITIZE_ADDRESS__
  const bool in_fork = false;
#else
  // Test hook (tests/integration/test_sweep.cpp): workers exec, as from a threaded process.
  const bool in_fork = serve_ && single_threaded() && !std::getenv("TRAINSIM_TEST_WORKER_EXEC");
#endif
  std::fflush(nullptr);  // nothing buffered before the fork is written twice
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("cannot start '" + argv_[0] + "': " + std::strerror(errno));
  if (pid == 0) {
    // A process group of its own: the terminal's Ctrl-C goes to the sweep, not the points.
    ::setpgid(0, 0);
    // A worker dies with its sweep, however the sweep dies (SIGKILL included): an orphan
    // would go on writing a point that a resumed sweep runs again.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);  // the sweep died before prctl took effect
    ::signal(SIGPIPE, SIG_DFL);               // the sweep ignores it; exec would keep that
    const int null_out = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (null_out < 0 || ::dup2(requests[0], 0) < 0 || ::dup2(null_out, 1) < 0 ||
        ::dup2(null_out, 2) < 0 || ::dup2(replies[1], 3) < 0)
      ::_exit(127);
    if (in_fork) {
      as_exec_would();
      int code = 1;
      try {
        code = serve_();
      } catch (...) {
      }
      std::fflush(nullptr);
      ::_exit(code);  // never back into the sweep's own code
    }
    restore_inherited_huge_pages();  // the worker starts as the sweep did
    ::execve(args[0], args.data(), environ);
    ::_exit(127);
  }
  ::close(requests[0]);
  ::close(replies[1]);
  Worker w;
  w.pid = pid;
  w.requests = requests[1];
  w.replies = replies[0];
  workers_.push_back(w);
  track_child_group(pid);
}

void WorkerPool::start(std::size_t n) {
  while (workers_.size() < std::min(n, max_workers_)) start_worker();
}

void WorkerPool::submit(const std::vector<std::string>& args, const std::string& stderr_path,
                        int tag) {
  std::size_t i = 0;
  while (i < workers_.size() && workers_[i].tag >= 0) ++i;
  if (i == workers_.size()) {
    if (workers_.size() >= max_workers_)
      throw std::logic_error("WorkerPool::submit: every worker is busy");
    start_worker();
  }
  // One request per line; JSON strings carry any byte of an argument (a newline included).
  nlohmann::json request;
  request["args"] = args;
  request["stderr"] = stderr_path;
  Worker& w = workers_[i];
  w.tag = tag;
  ++w.points;
  // A failed write: the worker died while idle (killed from outside). The end of its reply
  // pipe tells collect() so, and the point counts as killed.
  (void)write_all(w.requests, request.dump() + "\n");
}

std::size_t WorkerPool::running() const {
  std::size_t n = 0;
  for (const Worker& w : workers_) n += w.tag >= 0;
  return n;
}

bool WorkerPool::wait_one(ChildExit& out) {
  while (running() > 0)
    if (collect(-1, out)) return true;
  return false;
}

bool WorkerPool::try_wait(ChildExit& out, int timeout_ms) {
  return running() > 0 && collect(timeout_ms, out);
}

bool WorkerPool::collect(int timeout_ms, ChildExit& out) {
  std::vector<pollfd> fds;
  std::vector<std::size_t> owner;
  for (std::size_t i = 0; i < workers_.size(); ++i)
    if (workers_[i].tag >= 0) {
      fds.push_back({workers_[i].replies, POLLIN, 0});
      owner.push_back(i);
    }
  if (fds.empty()) return false;
  const int n = ::poll(fds.data(), fds.size(), timeout_ms);
  if (n < 0) {
    if (errno == EINTR) return false;  // a Ctrl-C: the caller checks its count
    throw std::runtime_error(std::string("poll: ") + std::strerror(errno));
  }
  for (std::size_t k = 0; k < fds.size(); ++k)
    if (fds[k].revents != 0 && read_replies(owner[k], out)) return true;
  return false;
}

// Reads what worker `i` wrote: true with `out` set when its point ended (a reply, or the
// worker's death).
bool WorkerPool::read_replies(std::size_t i, ChildExit& out) {
  Worker& w = workers_[i];
  char buf[256];
  const ssize_t n = ::read(w.replies, buf, sizeof buf);
  if (n < 0 && errno == EINTR) return false;
  if (n > 0) {
    w.pending.append(buf, static_cast<std::size_t>(n));
    const std::size_t nl = w.pending.find('\n');
    if (nl == std::string::npos) return false;
    // "TAG CODE": one line per point, the only thing a worker writes there.
    const int code = std::atoi(w.pending.c_str() + w.pending.find(' ') + 1);
    w.pending.erase(0, nl + 1);
    out.tag = w.tag;
    out.exit_code = code;
    w.tag = -1;
    // A retiring worker leaves once it has answered; so does one its point interrupted.
    if (w.points >= points_per_worker_ || code == kExitInterrupted) end_worker(i);
    return true;
  }
  // The end of its replies with a point in flight: the worker died in that point.
  int status = 0;
  while (::waitpid(w.pid, &status, 0) < 0 && errno == EINTR) {
  }
  out.tag = w.tag;
  const int code = exit_code_of(status);
  out.exit_code = code == 0 ? -1 : code;  // it never answered: not a success
  untrack_child_group(w.pid);
  ::close(w.requests);
  ::close(w.replies);
  workers_.erase(workers_.begin() + static_cast<std::ptrdiff_t>(i));
  return true;
}

void WorkerPool::end_worker(std::size_t i) {
  Worker& w = workers_[i];
  // The end of its requests (unless the destructor sent it): it exits once its point, if
  // any, is done.
  if (w.requests >= 0) ::close(w.requests);
  int status = 0;
  while (::waitpid(w.pid, &status, 0) < 0 && errno == EINTR) {
  }
  untrack_child_group(w.pid);
  ::close(w.replies);
  workers_.erase(workers_.begin() + static_cast<std::ptrdiff_t>(i));
}

void WorkerPool::signal_all(int signal) {
  for (const Worker& w : workers_) ::kill(-w.pid, signal);
}

}  // namespace trainsim
