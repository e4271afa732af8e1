#include "models/platform/platform.h"

#include <memory>
#include <stdexcept>
#include <systemc>

#include "models/platform/links.h"
#include "models/platform/process_guard.h"
#include "models/platform/stuck.h"
#include "models/sc_kernel.h"
#include "models/sim_time.h"
#include "sim/core/interrupt.h"

namespace trainsim {

namespace {

using sc_core::sc_time;

// The state one run shares between its processes. Lives until every process has returned.
class Run {
 public:
  Run(const Interconnect& net, const PlatformWork& w)
      : net_(net),
        w_(w),
        g_(*w.graph),
        devices_(static_cast<std::size_t>(g_.layout().devices)),
        guard_([this] { abandon(); }) {
    result_.tasks.resize(g_.size());
    result_.busy_ps.assign(devices_.size(), 0);
    waiting_.resize(g_.size());
    done_.assign(g_.size(), 0);
    next_.assign(devices_.size(), 0);
    for (std::size_t i = 0; i < g_.size(); ++i)
      waiting_[i] = static_cast<int>(g_.deps(static_cast<int>(i)).size());
  }

  PlatformResult execute() {
    start_ = sc_core::sc_time_stamp();
    sc_core::sc_spawn_options opts;
    for (std::size_t d = 0; d < devices_.size(); ++d)
      sc_core::sc_spawn([this, d] { guard_.run([&] { device(static_cast<int>(d)); }); },
                        sc_core::sc_gen_unique_name("platform_device"), &opts);
    // A transfer's tag is the task it is for; its device is where it is headed.
    links_ = std::make_unique<LinkBank>(
        net_, start_, guard_, [this](int c, std::int64_t task, std::int64_t bytes) {
          const int to = net_.channels()[static_cast<std::size_t>(c)].to;
          const int t = static_cast<int>(task);
          if (to == g_.task(t).device)
            arrived(t);
          else  // store and forward: the whole transfer goes on from here
            links_->send(net_.next_channel(to, g_.task(t).device), bytes, task);
        });
    run_kernel();
    result_.channels = links_->stats();
    result_.transfers = links_->records();
    // After an error every process has returned (abandon()); nothing is left to kill.
    guard_.rethrow();
    if (finished_devices_ != devices_.size()) {
      const std::string why = "platform: no device can go on at " + std::to_string(now_ps()) +
                              " ps: " + stuck_report(g_, *w_.orders, next_, done_);
      // The waiting processes are woken to return (SystemC cannot kill a process from outside
      // the simulation).
      stopping_ = true;
      for (Device& d : devices_) d.input.notify(sc_core::SC_ZERO_TIME);
      links_->stop();
      run_kernel();
      throw StuckError(why);
    }
    return result_;
  }

 private:
  void abandon() {
    for (Device& d : devices_) d.input.notify();
    if (links_) links_->stop();
  }

  struct Device {
    sc_core::sc_event input;  // a task of this device got its last input
  };

  // Picoseconds since the run's start, on the links' clock (they are built before any process
  // runs).
  std::int64_t now_ps() const { return links_->now_ps(); }

  void device(int d) {
    Device& dev = devices_[static_cast<std::size_t>(d)];
    // Work beside compute that waits for nothing (a trace's send without dependencies) is
    // never woken by an input: it ends at the start.
    for (int i = 0; i < static_cast<int>(g_.size()); ++i)
      if (g_.task(i).device == d && beside_compute(g_.task(i).pass) && g_.deps(i).empty())
        finished(i);
    for (int i : (*w_.orders)[static_cast<std::size_t>(d)]) {
      check_interrupt();  // a batch sequence of many tasks
      while (waiting_[static_cast<std::size_t>(i)] > 0 && !guard_.failed() && !stopping_)
        sc_core::wait(dev.input);
      if (guard_.failed() || stopping_) return;
      TaskTiming& timing = result_.tasks[static_cast<std::size_t>(i)];
      timing.start_ps = now_ps();
      const std::int64_t dur = w_.duration_ps[static_cast<std::size_t>(i)];
      if (dur > 0) {
        const sc_time now = sc_core::sc_time_stamp();
        sc_core::wait(after_ps(now, dur) - now);
      }
      timing.end_ps = now_ps();
      ++next_[static_cast<std::size_t>(d)];
      result_.busy_ps[static_cast<std::size_t>(d)] += dur;
      finished(i);
    }
    // Every transfer has been delivered once every device is done: its consumer has run.
    if (++finished_devices_ == devices_.size()) links_->stop();
  }

  // Task i has ended now: its users get their inputs, directly or over the links.
  void finished(int i) {
    done_[static_cast<std::size_t>(i)] = 1;
    const Task& t = g_.task(i);
    result_.makespan_ps =
        std::max(result_.makespan_ps, result_.tasks[static_cast<std::size_t>(i)].end_ps);
    for (int u : g_.users(i)) {
      const Task& ut = g_.task(u);
      if (ut.device == t.device) {
        arrived(u);
        continue;
      }
      std::int64_t bytes = 0;
      for (const Edge& e : g_.deps(u))
        if (e.from == i) bytes = e.bytes;
      links_->send(net_.next_channel(t.device, ut.device), bytes, u);
    }
  }

  void arrived(int task) {
    if (--waiting_[static_cast<std::size_t>(task)] > 0) return;
    if (beside_compute(g_.task(task).pass)) {
      // The communication engine runs it at once, whatever the device computes.
      TaskTiming& timing = result_.tasks[static_cast<std::size_t>(task)];
      timing.start_ps = timing.end_ps = now_ps();
      finished(task);
      return;
    }
    devices_[static_cast<std::size_t>(g_.task(task).device)].input.notify();
  }

  const Interconnect& net_;
  const PlatformWork& w_;
  const TaskGraph& g_;
  std::vector<Device> devices_;
  std::vector<int> waiting_;
  // For the account of a run that stops short (models/platform/stuck.h): which tasks ran, and
  // where in its order each device is.
  std::vector<char> done_;
  std::vector<std::size_t> next_;
  PlatformResult result_;
  sc_time start_;
  std::size_t finished_devices_ = 0;
  bool stopping_ = false;  // the run cannot finish: every process returns
  ProcessGuard guard_;
  std::unique_ptr<LinkBank> links_;
};

}  // namespace

PlatformResult run_platform(const Interconnect& net, const PlatformWork& work) {
  if (net.spec().devices != work.graph->layout().devices)
    throw std::logic_error("platform: the interconnect and the task graph disagree on devices");
  check_orders(*work.graph, *work.orders);
  if (work.duration_ps.size() != work.graph->size())
    throw std::logic_error("platform: one duration per task expected");
  prepare_kernel();
  auto run = std::make_unique<Run>(net, work);
  return run->execute();
}

}  // namespace trainsim
