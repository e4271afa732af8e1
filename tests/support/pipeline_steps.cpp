#include "tests/support/pipeline_steps.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "tests/support/spec_values.h"

namespace trainsim::test {

namespace {
Interconnect free_links(int devices) {
  InterconnectSpec net;
  net.devices = devices;
  for (int a = 0; a < devices; ++a)
    for (int b = a + 1; b < devices; ++b) net.links.push_back(link_between(a, b, 1e9, 0, 0));
  return Interconnect(net);
}
}  // namespace

double StepRun::idle_fraction() const {
  std::int64_t busy = 0;
  for (std::int64_t b : result.busy_ps) busy += b;
  const double total = static_cast<double>(result.makespan_ps) * result.busy_ps.size();
  return (total - static_cast<double>(busy)) / total;
}

int StepRun::peak_inflight(int device) const {
  // +1 at a forward's start, -1 at its backward's (or backward-data's) end, per device.
  std::vector<std::pair<std::int64_t, int>> events;
  for (std::size_t i = 0; i < graph.size(); ++i) {
    const Task& t = graph.task(static_cast<int>(i));
    if (t.device != device) continue;
    if (graph.spec().batches[static_cast<std::size_t>(t.batch)] != BatchKind::kBackprop) continue;
    if (t.pass == Pass::kForward) events.emplace_back(result.tasks[i].start_ps, +1);
    if (t.pass == Pass::kBackward || t.pass == Pass::kBackwardData)
      events.emplace_back(result.tasks[i].end_ps, -1);
  }
  std::sort(events.begin(), events.end());  // ends (-1) before starts at the same time
  int now = 0, peak = 0;
  for (const auto& e : events) peak = std::max(peak, now += e.second);
  return peak;
}

StepRun run_steps(const std::string& name, int devices, int micro_batches,
                  const std::vector<BatchKind>& batches, const StepCosts& c, int chunks,
                  const std::vector<std::vector<std::string>>& given) {
  const Schedule& s = schedule_named(name);
  ScheduleParams p{devices, micro_batches, chunks, given};
  GraphSpec spec;
  spec.micro_batches = micro_batches;
  spec.batches = batches;
  spec.split_backward = s.split_backward(p);
  TaskGraph g(s.layout(p), spec);
  const double scale = 1000.0 / chunks;  // a chunk is 1/v of a device's stage
  PlanCosts costs;
  costs.task_ps = [&](const Task& t) -> std::int64_t {
    switch (t.pass) {
      case Pass::kForward:
        return std::llround(c.f * scale);
      case Pass::kBackward:
        return std::llround(c.b * scale);
      case Pass::kBackwardData:
        return std::llround(c.bd * scale);
      case Pass::kBackwardWeight:
        return std::llround(c.w * scale);
      default:
        return 0;
    }
  };
  costs.edge_ps = [](const Task&, const Task&, EdgeData) -> std::int64_t { return 0; };
  DeviceOrders orders = s.order(g, costs, p);
  const Interconnect net = free_links(devices);
  std::vector<std::int64_t> durations;
  for (const Task& t : g.tasks()) durations.push_back(costs.task_ps(t));
  PlatformWork work{&g, &orders, std::move(durations)};  // the edges carry no bytes
  PlatformResult r = run_platform(net, work);
  return StepRun{std::move(g), std::move(orders), std::move(r)};
}

}  // namespace trainsim::test
