#include "models/platform/platform.h"

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <string>

#include "models/platform/placement.h"
#include "models/platform/stuck.h"

namespace trainsim {

namespace {

// Static orders, the placements decided ahead of the run: each device runs its list, a task
// once its last input has arrived; a task's end sends its outputs to the tasks that need them,
// directly on the same device, otherwise over the links (store and forward along the route).
class StaticOrders : public Placement {
 public:
  StaticOrders(const Interconnect& net, const PlatformWork& w) : net_(net), w_(w), g_(*w.graph) {
    const std::size_t devices = static_cast<std::size_t>(g_.layout().devices);
    result_.tasks.resize(g_.size());
    result_.busy_ps.assign(devices, 0);
    waiting_.resize(g_.size());
    done_.assign(g_.size(), 0);
    next_.assign(devices, 0);
    for (std::size_t i = 0; i < g_.size(); ++i)
      waiting_[i] = static_cast<int>(g_.deps(static_cast<int>(i)).size());
  }

  PlacementTiming timing() const override { return PlacementTiming::kAhead; }

  PlatformResult run() {
    Realized r = execute(*this, net_);
    result_.channels = std::move(r.channels);
    result_.transfers = std::move(r.transfers);
    result_.orders = std::move(r.orders);
    return result_;
  }

  void device_started(int d) override {
    // Work beside compute that waits for nothing (a trace's send without dependencies) is
    // never woken by an input: it ends at the start.
    for (int i = 0; i < static_cast<int>(g_.size()); ++i)
      if (g_.task(i).device == d && beside_compute(g_.task(i).pass) && g_.deps(i).empty())
        finished(i);
  }

  int next(int d) override {
    const std::vector<int>& order = (*w_.orders)[static_cast<std::size_t>(d)];
    const std::size_t at = next_[static_cast<std::size_t>(d)];
    if (at == order.size()) return kDone;
    const int i = order[at];
    return waiting_[static_cast<std::size_t>(i)] > 0 ? kWait : i;
  }

  std::int64_t start(int i, int) override {
    result_.tasks[static_cast<std::size_t>(i)].start_ps = executor().now_ps();
    return w_.duration_ps[static_cast<std::size_t>(i)];
  }

  void ended(int i, int d) override {
    result_.tasks[static_cast<std::size_t>(i)].end_ps = executor().now_ps();
    ++next_[static_cast<std::size_t>(d)];
    result_.busy_ps[static_cast<std::size_t>(d)] += w_.duration_ps[static_cast<std::size_t>(i)];
    finished(i);
  }

  void device_done(int) override {
    // Every transfer has been delivered once every device is done: its consumer has run.
    if (++finished_devices_ == next_.size()) executor().links().stop();
  }

  // A transfer's tag is the task it is for; its device is where it is headed.
  void delivered(int c, std::int64_t task, std::int64_t bytes) override {
    const int to = net_.channels()[static_cast<std::size_t>(c)].to;
    const int t = static_cast<int>(task);
    if (to == g_.task(t).device)
      arrived(t);
    else  // store and forward: the whole transfer goes on from here
      executor().links().send(net_.next_channel(to, g_.task(t).device), bytes, task);
  }

  std::exception_ptr unfinished() override {
    if (finished_devices_ == next_.size()) return nullptr;
    return std::make_exception_ptr(
        StuckError("platform: no device can go on at " + std::to_string(executor().now_ps()) +
                   " ps: " + stuck_report(g_, *w_.orders, next_, done_)));
  }

 private:
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
      executor().links().send(net_.next_channel(t.device, ut.device), bytes, u);
    }
  }

  void arrived(int task) {
    if (--waiting_[static_cast<std::size_t>(task)] > 0) return;
    if (beside_compute(g_.task(task).pass)) {
      // The communication engine runs it at once, whatever the device computes.
      TaskTiming& timing = result_.tasks[static_cast<std::size_t>(task)];
      timing.start_ps = timing.end_ps = executor().now_ps();
      finished(task);
      return;
    }
    executor().wake(g_.task(task).device);
  }

  const Interconnect& net_;
  const PlatformWork& w_;
  const TaskGraph& g_;
  std::vector<int> waiting_;
  // For the account of a run that stops short (models/platform/stuck.h): which tasks ran, and
  // where in its order each device is.
  std::vector<char> done_;
  std::vector<std::size_t> next_;
  std::size_t finished_devices_ = 0;
  PlatformResult result_;
};

}  // namespace

PlatformResult run_platform(const Interconnect& net, const PlatformWork& work) {
  if (net.spec().devices != work.graph->layout().devices)
    throw std::logic_error("platform: the interconnect and the task graph disagree on devices");
  check_orders(*work.graph, *work.orders);
  if (work.duration_ps.size() != work.graph->size())
    throw std::logic_error("platform: one duration per task expected");
  auto run = std::make_unique<StaticOrders>(net, work);
  return run->run();
}

}  // namespace trainsim
