#include "sim/core/thread_pool.h"

#include <algorithm>
#include <chrono>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define TRAINSIM_CPU_RELAX() _mm_pause()
#else
#define TRAINSIM_CPU_RELAX() std::this_thread::yield()
#endif

namespace trainsim {

namespace {
// How long an idle worker waits for the next loop before it sleeps: longer than the serial
// gaps inside a training batch (loss, softmax, small layers: tens of microseconds), short
// enough not to hold a core for long. It first spins (a loop arrives within microseconds
// while a layer's passes follow each other), then yields, so that on a shared, loaded
// machine the wait gives the core to whoever else is runnable.
constexpr auto kSpin = std::chrono::microseconds(5);
constexpr auto kWait = std::chrono::microseconds(100);

// Waits until pred() holds or kWait passed; returns pred().
template <typename Pred>
bool spin_until(Pred pred) {
  const auto start = std::chrono::steady_clock::now();
  for (int i = 1;; ++i) {
    if (pred()) return true;
    if (i % 32 != 0) {
      TRAINSIM_CPU_RELAX();
      continue;
    }
    const auto waited = std::chrono::steady_clock::now() - start;
    if (waited > kWait) return pred();
    if (waited > kSpin) std::this_thread::yield();
  }
}
}  // namespace

ThreadPool::ThreadPool(int threads) : shares_(std::make_unique<Share[]>(std::max(threads, 1))) {
  for (int i = 1; i < threads; ++i) workers_.emplace_back([this, i] { worker_loop(i); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  for (auto& t : workers_) t.join();
}

void ThreadPool::take_tasks(int worker) {
  // Its own share first, then the others' in turn: fetch_add hands out every index of a
  // share once, whoever takes it.
  for (int k = 0; k < size(); ++k) {
    Share& share = shares_[static_cast<std::size_t>((worker + k) % size())];
    for (int i; (i = share.next.fetch_add(1)) < share.end;) {
      try {
        (*job_)(i, worker);
      } catch (...) {
        std::lock_guard<std::mutex> lock(error_mutex_);
        if (!error_) error_ = std::current_exception();
      }
      done_.fetch_add(1);
    }
  }
}

void ThreadPool::run(int tasks, const Task& fn) {
  if (tasks <= 0) return;
  if (workers_.empty() || tasks == 1) {
    for (int i = 0; i < tasks; ++i) fn(i, 0);
    return;
  }
  job_ = &fn;
  for (int w = 0; w < size(); ++w) {
    Share& share = shares_[static_cast<std::size_t>(w)];
    share.next.store(static_cast<int>(static_cast<std::int64_t>(tasks) * w / size()));
    share.end = static_cast<int>(static_cast<std::int64_t>(tasks) * (w + 1) / size());
  }
  done_.store(0);
  const std::uint64_t generation = (state_.load() >> 1) + 1;
  state_.store(generation * 2 + 1);
  if (sleepers_.load() > 0) {
    // Taking the mutex orders this notify after a sleeper's last look at state_.
    std::lock_guard<std::mutex> lock(mutex_);
    wake_.notify_all();
  }
  take_tasks(0);
  while (done_.load() < tasks) {
    if (!spin_until([&] { return done_.load() >= tasks; })) std::this_thread::yield();
  }
  state_.store(generation * 2);
  while (active_.load() > 0) TRAINSIM_CPU_RELAX();
  job_ = nullptr;
  if (error_) {
    std::exception_ptr e = error_;
    error_ = nullptr;
    std::rethrow_exception(e);
  }
}

void ThreadPool::worker_loop(int index) {
  std::uint64_t last = 0;  // the last generation this worker looked at
  const auto fresh = [&] {
    const std::uint64_t s = state_.load();
    return (s & 1) != 0 && (s >> 1) != last;
  };
  for (;;) {
    if (!spin_until(fresh)) {
      std::unique_lock<std::mutex> lock(mutex_);
      sleepers_.fetch_add(1);
      wake_.wait(lock, [&] { return stop_ || fresh(); });
      sleepers_.fetch_sub(1);
      if (stop_) return;
    }
    // Register before looking again: the caller either sees this worker as active and waits
    // for it, or this worker sees the loop closed and leaves job_ alone.
    active_.fetch_add(1);
    const std::uint64_t s = state_.load();
    if ((s & 1) != 0 && (s >> 1) != last) {
      last = s >> 1;
      take_tasks(index);
    }
    active_.fetch_sub(1);
  }
}

}  // namespace trainsim
