// The one multi-device engine (models/platform/executor.h) with dispatchers made for the
// test: devices take their time, a transfer takes the link's, an online dispatcher can hand
// work to whichever device is idle, an error in any process comes back from run(), and a run
// that cannot finish raises the dispatcher's account instead of hanging.
#include <catch2/catch.hpp>

#include <array>
#include <stdexcept>
#include <vector>

#include "models/platform/executor.h"
#include "models/platform/topology.h"

using namespace trainsim;

namespace {

// 1 GB/s and 100 ns per hop: 1000 bytes arrive 1 us + 100 ns after they are sent.
Interconnect chain(int devices) {
  LinkSpec link;
  link.bandwidth_gbps = 1;
  link.latency_ns = 100;
  return Interconnect(find_topology("chain")->build(devices, link));
}

// A job queue taken online: each idle device takes the next job; job j takes (j + 1) us; when
// device 0 ends a job it sends 1000 bytes to device 1, which waits for them before its next
// job. Records each job's device, start and end.
class Queue : public Dispatcher {
 public:
  explicit Queue(const Interconnect& net, int jobs) : jobs_(jobs), x_(net, *this) {}

  struct Ran {
    int device = -1;
    std::int64_t start = 0, end = 0;
  };
  std::vector<Ran> ran;
  std::vector<std::int64_t> arrivals;

  void run() {
    ran.assign(static_cast<std::size_t>(jobs_), {});
    x_.run();
  }
  const std::vector<TaskRun>& runs() const { return x_.runs(); }

  int next(int d) override {
    if (d == 1 && owed_ > 0) return kWait;
    if (taken_ == jobs_) return kDone;
    return taken_++;
  }
  std::int64_t start(int job, int d) override {
    ran[static_cast<std::size_t>(job)].device = d;
    ran[static_cast<std::size_t>(job)].start = x_.now_ps();
    return (job + 1) * 1'000'000;
  }
  void ended(int job, int d) override {
    ran[static_cast<std::size_t>(job)].end = x_.now_ps();
    if (d == 0 && taken_ < jobs_) {
      ++owed_;
      x_.links().send(0, 1000, job);
    }
  }
  void device_done(int) override {
    if (++done_ == 2) x_.links().stop();
  }
  void delivered(int, std::int64_t, std::int64_t) override {
    arrivals.push_back(x_.now_ps());
    --owed_;
    x_.wake(1);
  }
  std::exception_ptr unfinished() override {
    if (done_ == 2) return nullptr;
    return std::make_exception_ptr(std::runtime_error("queue: not finished"));
  }

 private:
  int jobs_, taken_ = 0, owed_ = 0, done_ = 0;
  Executor x_;
};

// Device 0 waits for a wake that never comes.
class Forever : public Dispatcher {
 public:
  explicit Forever(const Interconnect& net) : x_(net, *this) {}
  void run() { x_.run(); }
  int next(int d) override { return d == 0 ? kWait : kDone; }
  std::int64_t start(int, int) override { return 0; }
  void ended(int, int) override {}
  void delivered(int, std::int64_t, std::int64_t) override {}
  std::exception_ptr unfinished() override {
    return std::make_exception_ptr(std::runtime_error("device 0 waits for a wake"));
  }

 private:
  Executor x_;
};

// A task whose start throws, as an op priced past the simulation's range would, while device 0
// and a process of the dispatcher's own wait for events that never come: the error must wake
// them to return.
class Throws : public Dispatcher {
 public:
  explicit Throws(const Interconnect& net) : x_(net, *this) {}
  void run() { x_.run(); }
  bool own_returned = false;

  void spawn(Executor& x, bool before) override {
    if (before)
      x.spawn(
          [this] {
            while (!x_.stopping()) sc_core::wait(never_);
            own_returned = true;
          },
          "own");
  }
  void abandon() override { never_.notify(sc_core::SC_ZERO_TIME); }
  int next(int d) override {
    if (d == 0) return kWait;
    return started_ ? kDone : 0;
  }
  std::int64_t start(int, int) override {
    started_ = true;
    throw std::runtime_error("an op past the range");
  }
  void ended(int, int) override {}
  void delivered(int, std::int64_t, std::int64_t) override {}
  std::exception_ptr unfinished() override { return nullptr; }

 private:
  bool started_ = false;
  sc_core::sc_event never_;
  Executor x_;
};

// Device 1 is woken after a delta cycle by a process of the dispatcher's own, spawned before
// the devices; device 0 by the same process, at once. Both then start a task of 1 ps.
class Deltas : public Dispatcher {
 public:
  explicit Deltas(const Interconnect& net) : x_(net, *this) {}
  void run() { x_.run(); }
  std::vector<int> order;  // devices in the order they started their task

  void spawn(Executor& x, bool before) override {
    if (!before) return;
    x.spawn(
        [this] {
          sc_core::wait(5, sc_core::SC_PS);
          go_ = true;
          x_.wake(1, true);
          x_.wake(0);
        },
        "own");
  }
  int next(int d) override {
    if (!go_) return kWait;
    return ran_[static_cast<std::size_t>(d)] ? kDone : d;
  }
  std::int64_t start(int task, int d) override {
    ran_[static_cast<std::size_t>(d)] = true;
    order.push_back(task);
    starts.push_back(x_.now_ps());
    return 1;
  }
  std::vector<std::int64_t> starts;
  void ended(int, int) override {}
  void device_done(int) override {
    if (++done_ == 2) x_.links().stop();
  }
  void delivered(int, std::int64_t, std::int64_t) override {}
  std::exception_ptr unfinished() override {
    return done_ == 2 ? nullptr : std::make_exception_ptr(std::runtime_error("deltas"));
  }

 private:
  bool go_ = false;
  std::array<bool, 2> ran_{};
  int done_ = 0;
  Executor x_;
};

// SystemC processes of this program that have not returned: a run must leave none behind (one
// left waiting would point into a destroyed executor).
int live_processes() {
  int n = 0;
  for (sc_core::sc_object* o : sc_core::sc_get_top_level_objects()) {
    sc_core::sc_process_handle h(o);
    if (h.valid() && !h.terminated()) ++n;
  }
  return n;
}

}  // namespace

TEST_CASE("Executor: devices take jobs online, wait for transfers, and take their time",
          "[platform][executor]") {
  const Interconnect net = chain(2);
  Queue q(net, 4);
  q.run();
  // At 0 device 0 takes job 0 (1 us) and device 1 job 1 (2 us). At 1 us device 0 ends job 0,
  // sends 1000 bytes (arriving at 2.1 us) and takes job 2 (3 us, to 4 us). At 2 us device 1
  // ends job 1 but owes the transfer: it takes job 3 when it arrives, at 2.1 us, until 6.1 us.
  // Device 0 ends job 2 at 4 us with nothing left to take, so it sends nothing.
  REQUIRE(q.ran.size() == 4);
  CHECK(q.ran[0].device == 0);
  CHECK(q.ran[0].end == 1'000'000);
  CHECK(q.ran[1].device == 1);
  CHECK(q.ran[1].end == 2'000'000);
  CHECK(q.ran[2].device == 0);
  CHECK(q.ran[2].start == 1'000'000);
  CHECK(q.ran[2].end == 4'000'000);
  CHECK(q.ran[3].device == 1);
  CHECK(q.ran[3].start == 2'100'000);
  CHECK(q.ran[3].end == 6'100'000);
  CHECK(q.arrivals == std::vector<std::int64_t>{2'100'000});
  // The executor's own record of what ran where: the same, in the order the jobs started.
  REQUIRE(q.runs().size() == 4);
  for (std::size_t k = 0; k < 4; ++k) {
    const TaskRun& r = q.runs()[k];
    INFO("run " << k);
    CHECK(r.task == static_cast<int>(k));
    CHECK(r.device == q.ran[k].device);
    CHECK(r.start_ps == q.ran[k].start);
    CHECK(r.end_ps == q.ran[k].end);
  }
}

TEST_CASE("Executor: a run that cannot finish raises its dispatcher's account, not a hang",
          "[platform][executor][errors]") {
  const Interconnect net = chain(2);
  const int live = live_processes();
  Forever f(net);
  CHECK_THROWS_WITH(f.run(), "device 0 waits for a wake");
  CHECK(live_processes() == live);
  // The kernel is usable again: another run on it completes.
  Queue q(net, 2);
  q.run();
  CHECK(q.ran[1].end == 2'000'000);
}

TEST_CASE("Executor: an error in a device's process stops the run and comes back from run()",
          "[platform][executor][errors]") {
  const Interconnect net = chain(2);
  const int live = live_processes();
  Throws t(net);
  CHECK_THROWS_WITH(t.run(), "an op past the range");
  CHECK(t.own_returned);
  CHECK(live_processes() == live);
  Queue q(net, 3);
  q.run();
  CHECK(q.ran[2].end == 4'000'000);
}

TEST_CASE("Executor: a dispatcher's own process wakes devices at once or after a delta cycle",
          "[platform][executor]") {
  const Interconnect net = chain(2);
  Deltas d(net);
  d.run();
  // Both start at 5 ps; device 0, woken at once, starts in the same delta cycle as the wake,
  // before device 1, woken for the next one.
  CHECK(d.order == std::vector<int>{0, 1});
  CHECK(d.starts == std::vector<std::int64_t>{5, 5});
}
