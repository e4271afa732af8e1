// The thread pool and the parallel-loop rules of sim/core/parallel.h: every task runs once,
// errors reach the caller, nested loops stay inline, and the cut of a loop depends on its
// work only.
#include <atomic>
#include <catch2/catch.hpp>
#include <stdexcept>
#include <vector>

#include "sim/core/parallel.h"

using namespace trainsim;

TEST_CASE("ThreadPool runs every task exactly once in loop after loop", "[core][parallel]") {
  for (int threads : {1, 2, 3}) {
    ThreadPool pool(threads);
    CHECK(pool.size() == threads);
    for (int loop = 0; loop < 500; ++loop) {
      const int tasks = 1 + loop % 17;
      std::vector<std::atomic<int>> runs(static_cast<std::size_t>(tasks));
      std::atomic<int> bad_worker{0};
      pool.run(tasks, [&](int task, int worker) {
        runs[static_cast<std::size_t>(task)].fetch_add(1);
        if (worker < 0 || worker >= threads) bad_worker.fetch_add(1);
      });
      for (auto& r : runs) REQUIRE(r.load() == 1);
      REQUIRE(bad_worker.load() == 0);
    }
  }
}

TEST_CASE("ThreadPool rethrows a task's exception after the loop", "[core][parallel]") {
  ThreadPool pool(2);
  std::atomic<int> ran{0};
  CHECK_THROWS_WITH(pool.run(8,
                             [&](int task, int) {
                               ran.fetch_add(1);
                               if (task == 5) throw std::runtime_error("task 5 failed");
                             }),
                    "task 5 failed");
  CHECK(ran.load() == 8);  // the other tasks still ran
  // And the pool still works afterwards.
  std::atomic<int> after{0};
  pool.run(4, [&](int, int) { after.fetch_add(1); });
  CHECK(after.load() == 4);
}

TEST_CASE("parallel_for uses the scope's pool and runs nested loops inline", "[core][parallel]") {
  CHECK(parallel_workers() == 1);  // no scope: the calling thread only
  ThreadPool pool(2);
  {
    const ParallelScope scope(&pool);
    CHECK(parallel_workers() == 2);
    std::vector<int> outer_worker(6, -1);
    std::vector<std::vector<int>> inner_workers(6);
    parallel_for(6, [&](int task, int worker) {
      outer_worker[static_cast<std::size_t>(task)] = worker;
      // A nested loop keeps its task's worker slot (it indexes per-worker scratch).
      parallel_for(3, [&](int, int inner) {
        inner_workers[static_cast<std::size_t>(task)].push_back(inner);
      });
    });
    for (int t = 0; t < 6; ++t) {
      const auto& inner = inner_workers[static_cast<std::size_t>(t)];
      REQUIRE(inner.size() == 3);
      for (int w : inner) CHECK(w == outer_worker[static_cast<std::size_t>(t)]);
    }
  }
  CHECK(parallel_workers() == 1);
}

TEST_CASE("Loops are cut by their work and never by the thread count", "[core][parallel]") {
  CHECK(task_count(100, 1000, kMaxThreads) == 1);
  CHECK(task_count(5000, 1000, kMaxThreads) == 5);
  CHECK(task_count(1 << 30, 1000, kMaxThreads) == kMaxThreads);
  CHECK(task_count(1 << 30, 1000, 3) == 3);
  std::int64_t covered = 0;
  for (int p = 0; p < 7; ++p) {
    const IndexRange r = split_range(100, 7, p);
    CHECK(r.begin == covered);
    CHECK((r.size() == 14 || r.size() == 15));
    covered = r.end;
  }
  CHECK(covered == 100);
  // parallel_ranges gives the same ranges with one thread and with three.
  auto ranges = [](int threads) {
    ThreadPool pool(threads);
    const ParallelScope scope(&pool);
    std::vector<std::pair<std::int64_t, std::int64_t>> seen(kMaxThreads, {-1, -1});
    std::atomic<int> count{0};
    parallel_ranges(12345, 1000, [&](std::int64_t b, std::int64_t e) {
      seen[static_cast<std::size_t>(count.fetch_add(1))] = {b, e};
    });
    std::sort(seen.begin(), seen.end());
    return seen;
  };
  CHECK(ranges(1) == ranges(3));
  CHECK(default_threads() >= 1);
  CHECK(default_threads() <= kMaxThreads);
}
