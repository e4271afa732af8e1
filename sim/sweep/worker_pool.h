#pragma once
// Long-lived worker processes for sweep points. A point used to be a `trainsim run` process
// of its own, which paid for the start, the configuration and every mapping search again;
// a worker (`trainsim sweep --point-worker`, sim/sweep/point_worker.h) runs point after point
// in one process, so the cost memo of its earlier points serves the later ones, and each
// point still writes its own directory and stderr file, with the exit code its own process
// would have had. Isolation stays where it matters: a point that crashes takes only its
// worker down (the point fails, a new worker takes the next one), and a worker retires after
// `points_per_worker` points, which bounds what a leak in one point could take from the rest
// (1: a process per point, `sweep --isolate`).
//
// Workers live in process groups of their own (the terminal's Ctrl-C reaches the sweep only)
// and die with the sweep (PR_SET_PDEATHSIG), as the processes of the earlier pool did.
#include <sys/types.h>

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "sim/sweep/child_processes.h"

namespace trainsim {

class WorkerPool {
 public:
  /// `worker_argv`: the worker's command line (argv[0] a path); at most `max_workers` at once.
  WorkerPool(std::vector<std::string> worker_argv, std::size_t max_workers,
             std::size_t points_per_worker);
  /// Workers started while this process has one thread are forked copies of it that call
  /// `serve` (which serves requests as `worker_argv` does and ends the process), not new
  /// programs: the exec, the dynamic linker and static initialisation cost a worker 25-30 ms
  /// of CPU on the test machine, more than a point. A process with other threads (MPI's, once
  /// it is initialised) execs `worker_argv`: a thread may hold a lock the copy would wait for
  /// forever.
  void serve_in_fork(std::function<int()> serve) { serve_ = std::move(serve); }
  /// Ends every worker: idle ones read the end of their requests and exit; busy ones finish
  /// their point first.
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  /// Starts idle workers until there are `n` (at most the pool's size), so that their start
  /// overlaps whatever the caller does before its first submit().
  void start(std::size_t n);
  /// Whether submit() has a worker for one more point now.
  bool can_submit() const { return running() < max_workers_; }
  /// Runs `args` (a command line without the program name) in an idle worker, starting one
  /// if needed, with the worker's stderr in `stderr_path` while it runs; `tag` comes back
  /// with its exit.
  void submit(const std::vector<std::string>& args, const std::string& stderr_path, int tag);
  /// Waits for any submitted point to end; false if none is running.
  bool wait_one(ChildExit& out);
  /// The same, waiting at most `timeout_ms` (0: not at all): false if no point has ended.
  bool try_wait(ChildExit& out, int timeout_ms = 0);
  /// Sends `signal` to every worker's process group.
  void signal_all(int signal);
  /// Points in flight.
  std::size_t running() const;

 private:
  struct Worker {
    pid_t pid = -1;
    int requests = -1;  ///< our end of the worker's stdin
    int replies = -1;   ///< our end of the worker's fd 3
    int tag = -1;       ///< the point it runs, -1 when idle
    std::size_t points = 0;
    std::string pending;  ///< a reply read in part
  };
  void start_worker();
  bool collect(int timeout_ms, ChildExit& out);
  bool read_replies(std::size_t i, ChildExit& out);
  void end_worker(std::size_t i);

  std::vector<std::string> argv_;
  std::function<int()> serve_;
  std::size_t max_workers_, points_per_worker_;
  std::vector<Worker> workers_;
};

}  // namespace trainsim
