#include "sim/core/parallel.h"

namespace trainsim {

namespace {
thread_local ThreadPool* t_pool = nullptr;
// Inside a task: the worker slot of the task (a loop nested in it runs inline and must keep
// using its task's scratch slot).
thread_local bool t_in_task = false;
thread_local int t_worker = 0;

// Marks the running thread as inside a task of `pool` for its lifetime.
class TaskFrame {
 public:
  TaskFrame(ThreadPool* pool, int worker) : pool_(t_pool), in_task_(t_in_task), worker_(t_worker) {
    t_pool = pool;
    t_in_task = true;
    t_worker = worker;
  }
  ~TaskFrame() {
    t_pool = pool_;
    t_in_task = in_task_;
    t_worker = worker_;
  }

 private:
  ThreadPool* pool_;
  bool in_task_;
  int worker_;
};
}  // namespace

int default_threads() {
  const auto cores = static_cast<int>(std::thread::hardware_concurrency());
  return std::clamp(cores, 1, kMaxThreads);
}

ParallelScope::ParallelScope(ThreadPool* pool) : previous_(t_pool) {
  t_pool = pool;
}
ParallelScope::~ParallelScope() {
  t_pool = previous_;
}

int parallel_workers() {
  return t_pool != nullptr ? t_pool->size() : 1;
}

void parallel_for(int tasks, const std::function<void(int, int)>& fn) {
  if (t_in_task || t_pool == nullptr || t_pool->size() == 1 || tasks <= 1) {
    for (int i = 0; i < tasks; ++i) fn(i, t_worker);
    return;
  }
  ThreadPool* pool = t_pool;
  pool->run(tasks, [&fn, pool](int task, int worker) {
    const TaskFrame frame(pool, worker);
    fn(task, worker);
  });
}

void parallel_ranges(std::int64_t n, std::int64_t grain,
                     const std::function<void(std::int64_t, std::int64_t)>& fn) {
  if (n <= 0) return;
  int tasks = task_count(n, grain, kMaxThreads);
  if (tasks > 1 && tasks % 2 == 1 && tasks < kMaxThreads && n > tasks) ++tasks;
  parallel_for(tasks, [&](int task, int) {
    const IndexRange r = split_range(n, tasks, task);
    fn(r.begin, r.end);
  });
}

}  // namespace trainsim
