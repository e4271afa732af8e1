#pragma once
// A fixed set of worker threads that run the tasks of one parallel loop at a time. Training
// issues thousands of short loops per second (a LeNet-5 batch is about a millisecond), so
// workers spin briefly for the next loop before they sleep, and the calling thread takes
// tasks too. Which thread runs which task is not fixed; callers keep results independent of
// that by giving every task its own output (see sim/core/parallel.h).
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace trainsim {

class ThreadPool {
 public:
  /// A task: (task index, worker index in [0, size())). The caller is worker 0.
  using Task = std::function<void(int, int)>;

  /// `threads` >= 1 counts the caller: threads - 1 workers are started.
  explicit ThreadPool(int threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int size() const { return static_cast<int>(workers_.size()) + 1; }
  /// Runs fn(i, worker) for every i in [0, tasks) and returns when all have finished. The
  /// first exception a task throws is rethrown here (after the other tasks finished).
  void run(int tasks, const Task& fn);

 private:
  void worker_loop(int index);
  void take_tasks(int worker);

  std::vector<std::thread> workers_;
  // state_ = generation * 2 + open: workers join a loop only while it is open, and the
  // caller closes it and waits for `active_` to drain before `job_` goes out of scope.
  std::atomic<std::uint64_t> state_{0};
  std::atomic<int> active_{0};
  // Each thread's share of a loop's tasks: thread w first takes tasks [next, end) of
  // shares_[w] (a contiguous w-th of the loop), then what is left of the others'. Consecutive
  // loops over the same samples (a convolution, then its ReLU and pooling) thus give each
  // thread the part it wrote before, still in its own core's cache, instead of the other
  // core's; on the 2-core machines trainsim runs on, cores may not even share a cache level.
  struct alignas(64) Share {
    std::atomic<int> next{0};
    int end = 0;
  };
  std::unique_ptr<Share[]> shares_;
  std::atomic<int> done_{0};
  const Task* job_ = nullptr;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::atomic<int> sleepers_{0};
  bool stop_ = false;  // guarded by mutex_
  std::exception_ptr error_;
  std::mutex error_mutex_;
};

}  // namespace trainsim
