#include "models/platform/placement.h"

#include <algorithm>

namespace trainsim {

const char* placement_timing_name(PlacementTiming t) {
  return t == PlacementTiming::kAhead ? "ahead" : "online";
}

Realized execute(Placement& p, const Interconnect& net) {
  Executor x(net, p);
  x.run();
  Realized r;
  r.runs = x.runs();
  r.channels = x.links().stats();
  r.transfers = x.links().records();
  r.orders.resize(static_cast<std::size_t>(net.spec().devices));
  for (const TaskRun& t : r.runs) {
    r.orders[static_cast<std::size_t>(t.device)].push_back(t.task);
    r.makespan_ps = std::max(r.makespan_ps, t.end_ps);
  }
  return r;
}

}  // namespace trainsim
