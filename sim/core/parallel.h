#pragma once
// Parallel loops for the numerics, and the rule that keeps them reproducible: a loop is cut
// into tasks by the size of the work alone, never by the number of threads, and every task
// writes its own part of the result (a reduction writes one partial per task, summed in task
// order afterwards). Which thread runs a task then cannot change a single bit, so a run gives
// the same bytes on 1 thread as on 2 or 16.
//
// The pool is chosen per calling thread with a ParallelScope (the Trainer opens one with
// `training.threads`); outside any scope, and inside a task, loops run on the calling thread.
#include <algorithm>
#include <cstdint>
#include <functional>

#include "sim/core/thread_pool.h"

namespace trainsim {

/// The most threads the numerics can use: a loop is cut into at most this many tasks (more
/// would shrink every GEMM on the 2-core machines trainsim is built on).
inline constexpr int kMaxThreads = 8;
/// All cores of this machine, at most kMaxThreads.
int default_threads();

/// Makes `pool` the pool of this thread's parallel loops until destroyed (nullptr: none).
class ParallelScope {
 public:
  explicit ParallelScope(ThreadPool* pool);
  ~ParallelScope();
  ParallelScope(const ParallelScope&) = delete;
  ParallelScope& operator=(const ParallelScope&) = delete;

 private:
  ThreadPool* previous_;
};

/// Workers a loop started here may use: per-worker scratch needs this many slots.
int parallel_workers();

/// Runs fn(task, worker) for every task in [0, tasks), worker < parallel_workers().
void parallel_for(int tasks, const std::function<void(int task, int worker)>& fn);

/// Runs fn(begin, end) on consecutive ranges that cover [0, n): one range per `grain`
/// items, at most kMaxThreads, and an even count when more than one (loops whose every item
/// is independent, so the cut changes no bit; three ranges on two threads kept one waiting
/// for a third of the loop, as in LeNet-5's fc1).
void parallel_ranges(std::int64_t n, std::int64_t grain,
                     const std::function<void(std::int64_t begin, std::int64_t end)>& fn);

/// Up to `max_tasks` tasks of at least `grain` units of work each (at least one task): the
/// cut depends on the work only.
inline int task_count(std::int64_t work, std::int64_t grain, int max_tasks) {
  const std::int64_t n = grain > 0 ? work / grain : max_tasks;
  return static_cast<int>(std::clamp<std::int64_t>(n, 1, max_tasks));
}

/// The half-open range of part `part` when [0, n) is cut into `parts` near-equal parts.
struct IndexRange {
  std::int64_t begin, end;
  std::int64_t size() const { return end - begin; }
};
inline IndexRange split_range(std::int64_t n, int parts, int part) {
  return {n * part / parts, n * (part + 1) / parts};
}

}  // namespace trainsim
