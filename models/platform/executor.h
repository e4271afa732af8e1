#pragma once
// The one engine every multi-device run executes on: one SystemC process per device and the
// links of one Interconnect (models/platform/links.h), on the process's one kernel. A device
// process asks its Dispatcher which task it starts next, waits for it, takes the task's time
// and tells the dispatcher it ended; the dispatcher decides everything else (what a task
// needs before it may start, what its end sends where, what a transfer's arrival means).
//
// What varies between kinds of run is therefore only the dispatcher:
//   * static orders (models/platform/platform.h): every device runs a list fixed before the
//     run, as pipeline schedules, data-parallel replicas and trace replays emit them;
//   * a runtime that places ops as they become ready (Hype-training's policies,
//     sim/hype/runtime.cpp), with processes of its own (the decision loop, a clock
//     controller) spawned beside the devices.
// Both get the same device timing, the same links, the same error discipline (an exception in
// any process stops the run and is rethrown by run()) and the same end: a run whose kernel
// runs out of events before its dispatcher is done stops with the dispatcher's one-line account
// of what waits for what, never a hang.
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <systemc>
#include <utility>
#include <vector>

#include "models/platform/interconnect.h"
#include "models/platform/links.h"
#include "models/platform/process_guard.h"

namespace trainsim {

class Executor;

/// One task as a device's process ran it: what the executor saw of every run, whatever decided
/// it (models/platform/placement.h gathers these into per-device orders).
struct TaskRun {
  int task = 0;
  int device = 0;
  std::int64_t start_ps = 0, end_ps = 0;  ///< since the run's start
};

class Dispatcher {
 public:
  /// What Dispatcher::next returns when a device has no task it may start now (the device waits
  /// for Executor::wake) or nothing more to run (its process ends).
  static constexpr int kWait = -1;
  static constexpr int kDone = -2;

  virtual ~Dispatcher() = default;
  /// Processes of the dispatcher's own, spawned (Executor::spawn) before the devices' (`before`)
  /// or after them. The order is the kernel's order of first activation, which decides ties at
  /// one instant, so it is part of what a run computes.
  virtual void spawn(Executor& /*x*/, bool /*before*/) {}
  /// Device d's process has started (before its first next()).
  virtual void device_started(int /*device*/) {}
  /// The task device d starts now, kWait or kDone.
  virtual int next(int device) = 0;
  /// Task i starts now on device d; returns how long it runs, in picoseconds.
  virtual std::int64_t start(int task, int device) = 0;
  /// Task i, started on device d, has ended now.
  virtual void ended(int task, int device) = 0;
  /// Device d's process ends (next() said kDone).
  virtual void device_done(int /*device*/) {}
  /// A transfer sent with tag `tag` has arrived at the far end of `channel`.
  virtual void delivered(int channel, std::int64_t tag, std::int64_t bytes) = 0;
  /// After the kernel ran out of events without an error: nullptr if the run is complete,
  /// otherwise the error that says what waits for what (taken before the processes are woken
  /// to return, since waking them changes the state it describes).
  virtual std::exception_ptr unfinished() = 0;
  /// The run is being wound down (an error, or unfinished()): wake the dispatcher's own
  /// processes so that they return (the executor wakes the devices and stops the links).
  virtual void abandon() {}

 protected:
  /// The executor running this dispatcher (from when one is built over it until it is
  /// destroyed): its clock, links and wakes. std::logic_error outside a run. A dispatcher is
  /// run by one executor at a time.
  Executor& executor() const {
    if (executor_ == nullptr) unbound();
    return *executor_;
  }

 private:
  friend class Executor;
  [[noreturn]] static void unbound();
  Executor* executor_ = nullptr;
};

class Executor {
 public:
  /// Devices 0 .. net.spec().devices - 1, joined by `net`; `d` must outlive the executor.
  Executor(const Interconnect& net, Dispatcher& d);
  Executor(const Executor&) = delete;
  Executor& operator=(const Executor&) = delete;
  ~Executor();

  /// Runs every process until the kernel has nothing left to do, from outside the simulation;
  /// rethrows the first error of any process, or the dispatcher's unfinished() error.
  void run();

  /// Spawns a process of the run, under its error discipline (from Dispatcher::spawn).
  void spawn(std::function<void()> body, const char* name);
  /// Device d may have a task to start: its process asks next() again, now (an immediate
  /// notification, seen only if the device is waiting) or after a delta cycle.
  void wake(int device, bool next_delta = false);
  /// Every process of the run returns as soon as it runs again (after an error).
  bool stopping() const { return stopping_ || guard_.failed(); }
  /// Picoseconds since the run's start.
  std::int64_t now_ps() const { return links_ ? links_->now_ps() : 0; }
  LinkBank& links() { return *links_; }
  const Interconnect& net() const { return net_; }
  int devices() const { return static_cast<int>(events_.size()); }
  /// Every task the devices ran to its end, in the order they ended (ties: the kernel's
  /// order); a device's tasks are in the order it ran them.
  const std::vector<TaskRun>& runs() const { return runs_; }
  /// The same, moved out (after run()).
  std::vector<TaskRun> take_runs() { return std::move(runs_); }

 private:
  void device(int d);
  void abandon();

  const Interconnect& net_;
  Dispatcher& d_;
  std::vector<std::unique_ptr<sc_core::sc_event>> events_;  // per device: something changed
  ProcessGuard guard_;
  std::unique_ptr<LinkBank> links_;
  std::vector<TaskRun> runs_;
  bool stopping_ = false;
};

}  // namespace trainsim
