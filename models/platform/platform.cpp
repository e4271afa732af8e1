#include "models/platform/platform.h"

#include <deque>
#include <exception>
#include <memory>
#include <stdexcept>
#include <systemc>

#include "models/platform/stuck.h"
#include "models/sc_kernel.h"
#include "models/sim_time.h"
#include "sim/core/interrupt.h"

namespace trainsim {

namespace {

using sc_core::SC_PS;
using sc_core::sc_time;

struct Transfer {
  int task = 0;  // the consumer
  int node = 0;  // its device
  std::int64_t bytes = 0;
};

// The state one run shares between its processes. Lives until every process has returned.
class Run {
 public:
  Run(const Interconnect& net, const PlatformWork& w)
      : net_(net),
        w_(w),
        g_(*w.graph),
        devices_(static_cast<std::size_t>(g_.layout().devices)),
        channels_(net.channels().size()) {
    result_.tasks.resize(g_.size());
    result_.channels.resize(net.channels().size());
    result_.busy_ps.assign(devices_.size(), 0);
    waiting_.resize(g_.size());
    done_.assign(g_.size(), 0);
    next_.assign(devices_.size(), 0);
    for (std::size_t i = 0; i < g_.size(); ++i)
      waiting_[i] = static_cast<int>(g_.deps(static_cast<int>(i)).size());
  }

  PlatformResult execute() {
    start_ = sc_core::sc_time_stamp();
    std::vector<sc_core::sc_process_handle> handles;
    sc_core::sc_spawn_options opts;
    for (std::size_t d = 0; d < devices_.size(); ++d)
      handles.push_back(
          sc_core::sc_spawn([this, d] { guarded([&] { device(static_cast<int>(d)); }); },
                            sc_core::sc_gen_unique_name("platform_device"), &opts));
    for (std::size_t c = 0; c < channels_.size(); ++c) {
      handles.push_back(
          sc_core::sc_spawn([this, c] { guarded([&] { send(static_cast<int>(c)); }); },
                            sc_core::sc_gen_unique_name("platform_link"), &opts));
      handles.push_back(
          sc_core::sc_spawn([this, c] { guarded([&] { deliver(static_cast<int>(c)); }); },
                            sc_core::sc_gen_unique_name("platform_link_rx"), &opts));
    }
    run_kernel();
    // After an error every process has returned (abandon()); nothing is left to kill.
    if (error_) std::rethrow_exception(error_);
    if (finished_devices_ != devices_.size()) {
      for (auto& h : handles)
        if (!h.terminated()) h.kill();
      throw StuckError("platform: no device can go on at " + std::to_string(now_ps()) +
                       " ps: " + stuck_report(g_, *w_.orders, next_, done_));
    }
    return result_;
  }

 private:
  // Runs a process's body. An exception (a time past the simulation's range, an interrupt)
  // must not leave a SystemC process, which the kernel would report as its own error: it is
  // kept, every process is woken to return (abandon()), and execute() rethrows it once the
  // simulation has run out of events. (Killing the processes from outside the simulation
  // instead crashes SystemC.)
  template <typename Body>
  void guarded(const Body& body) {
    try {
      body();
    } catch (const sc_core::sc_unwind_exception&) {
      throw;  // SystemC's own: a process being killed must let it pass
    } catch (...) {
      if (!error_) error_ = std::current_exception();
      abandon();
    }
  }

  void abandon() {
    stopping_ = true;
    for (Device& d : devices_) d.input.notify();
    for (auto& c : channels_) c.queued.notify(), c.sent.notify();
  }

  struct Device {
    sc_core::sc_event input;  // a task of this device got its last input
  };
  struct ChannelState {
    std::deque<Transfer> queue;
    std::deque<std::pair<sc_time, Transfer>> in_flight;  // arrival time order
    sc_core::sc_event queued, sent;
  };

  std::int64_t now_ps() const {
    return static_cast<std::int64_t>((sc_core::sc_time_stamp() - start_).value() /
                                     sc_time(1, SC_PS).value());
  }

  void device(int d) {
    Device& dev = devices_[static_cast<std::size_t>(d)];
    // Work beside compute that waits for nothing (a trace's send without dependencies) is
    // never woken by an input: it ends at the start.
    for (int i = 0; i < static_cast<int>(g_.size()); ++i)
      if (g_.task(i).device == d && beside_compute(g_.task(i).pass) && g_.deps(i).empty())
        finished(i);
    for (int i : (*w_.orders)[static_cast<std::size_t>(d)]) {
      check_interrupt();  // a batch sequence of many tasks
      while (waiting_[static_cast<std::size_t>(i)] > 0 && !error_) sc_core::wait(dev.input);
      if (error_) return;
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
    if (++finished_devices_ == devices_.size()) {
      stopping_ = true;  // every transfer has been delivered: its consumer has run
      for (auto& c : channels_) c.queued.notify(), c.sent.notify();
    }
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
      EdgeData data = EdgeData::kNone;
      for (const Edge& e : g_.deps(u))
        if (e.from == i) data = e.data;
      route({u, ut.device, w_.edge_bytes(t, data)}, t.device);
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

  void route(const Transfer& t, int at) {
    const int c = net_.next_channel(at, t.node);
    ChannelState& ch = channels_[static_cast<std::size_t>(c)];
    ch.queue.push_back(t);
    ch.queued.notify();
  }

  // One direction of a link: transmits one transfer at a time at the link's bandwidth.
  void send(int c) {
    ChannelState& ch = channels_[static_cast<std::size_t>(c)];
    const Channel& spec = net_.channels()[static_cast<std::size_t>(c)];
    ChannelStats& stats = result_.channels[static_cast<std::size_t>(c)];
    const std::int64_t latency = latency_ps(spec);
    for (;;) {
      while (ch.queue.empty()) {
        if (stopping_) return;
        sc_core::wait(ch.queued);
      }
      if (error_) return;
      const Transfer t = ch.queue.front();
      ch.queue.pop_front();
      const std::int64_t ps = serialise_ps(t.bytes, spec.link.bandwidth_gbps, spec.bandwidth_key);
      const std::int64_t begin = now_ps();
      if (ps > 0) {
        const sc_time now = sc_core::sc_time_stamp();
        sc_core::wait(after_ps(now, ps) - now);
      }
      stats.bytes += t.bytes;
      stats.busy_ps += ps;
      ++stats.transfers;
      stats.energy_pj += static_cast<double>(t.bytes) * 8.0 * spec.link.pj_per_bit;
      result_.transfers.push_back({c, t.task, begin, now_ps(), t.bytes});
      ch.in_flight.emplace_back(after_ps(sc_core::sc_time_stamp(), latency), t);
      ch.sent.notify();
    }
  }

  // The far end of the same direction: hands each transfer on after the link's latency.
  void deliver(int c) {
    ChannelState& ch = channels_[static_cast<std::size_t>(c)];
    const int to = net_.channels()[static_cast<std::size_t>(c)].to;
    for (;;) {
      while (ch.in_flight.empty()) {
        if (stopping_) return;
        sc_core::wait(ch.sent);
      }
      if (error_) return;
      const auto [when, t] = ch.in_flight.front();
      ch.in_flight.pop_front();
      if (when > sc_core::sc_time_stamp()) sc_core::wait(when - sc_core::sc_time_stamp());
      if (to == t.node)
        arrived(t.task);
      else
        route(t, to);
    }
  }

  const Interconnect& net_;
  const PlatformWork& w_;
  const TaskGraph& g_;
  std::vector<Device> devices_;
  std::vector<ChannelState> channels_;
  std::vector<int> waiting_;
  // For the account of a run that stops short (models/platform/stuck.h): which tasks ran, and
  // where in its order each device is.
  std::vector<char> done_;
  std::vector<std::size_t> next_;
  PlatformResult result_;
  sc_time start_;
  std::size_t finished_devices_ = 0;
  bool stopping_ = false;
  std::exception_ptr error_;
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
