#include <stdexcept>

#include "sim/core/named_registry.h"
#include "sim/pipeline/schedule.h"
#include "sim/pipeline/schedules/schedules.h"
#include "sim/pipeline/stuck.h"

namespace trainsim {

const std::vector<const Schedule*>& schedules() {
  static const std::vector<const Schedule*> all{&gpipe_schedule(), &one_f_one_b_schedule(),
                                                &interleaved_schedule(), &zero_bubble_h1_schedule(),
                                                &chimera_schedule()};
  return all;
}

const Schedule& schedule_named(const std::string& name) {
  return registry_get(schedules(), name, "schedule");
}

PipelineLayout straight_layout(const ScheduleParams& p) {
  if (p.chunks != 1)
    throw UserError("pipeline.chunks is only for the interleaved schedule (got " +
                    std::to_string(p.chunks) + ")");
  PipelineLayout l;
  l.devices = p.devices;
  l.stages = p.devices;
  l.placement.emplace_back();
  for (int s = 0; s < p.devices; ++s) l.placement[0].push_back(s);
  l.micro_pipe.assign(static_cast<std::size_t>(p.micro_batches), 0);
  return l;
}

void check_orders(const TaskGraph& g, const DeviceOrders& orders) {
  const int n = static_cast<int>(g.size());
  std::vector<int> seen(static_cast<std::size_t>(n), 0);
  if (static_cast<int>(orders.size()) != g.layout().devices)
    throw std::logic_error("pipeline schedule: one order per device expected");
  for (std::size_t d = 0; d < orders.size(); ++d)
    for (int i : orders[d]) {
      if (i < 0 || i >= n || g.task(i).device != static_cast<int>(d) ||
          seen[static_cast<std::size_t>(i)]++)
        throw std::logic_error("pipeline schedule: a task is misplaced or repeated");
    }
  for (int i = 0; i < n; ++i)
    if (!seen[static_cast<std::size_t>(i)])
      throw StuckError("pipeline schedule: no device's order runs '" + g.task(i).label() +
                       "' (placed on dev" + std::to_string(g.task(i).device) + ")");
  // Run the orders without time: each device takes its next task once its inputs are done.
  std::vector<std::size_t> next(orders.size(), 0);
  std::vector<char> done(static_cast<std::size_t>(n), 0);
  for (int finished = 0; finished < n;) {
    bool progress = false;
    for (std::size_t d = 0; d < orders.size(); ++d)
      while (next[d] < orders[d].size()) {
        const int i = orders[d][next[d]];
        bool ok = true;
        for (const Edge& e : g.deps(i)) ok = ok && done[static_cast<std::size_t>(e.from)];
        if (!ok) break;
        done[static_cast<std::size_t>(i)] = 1;
        ++next[d], ++finished, progress = true;
      }
    if (!progress)
      throw StuckError("pipeline schedule: the device orders cannot finish: " +
                       stuck_report(g, orders, next, done));
  }
}

}  // namespace trainsim
