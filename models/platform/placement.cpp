#include "models/platform/placement.h"

namespace trainsim {

const char* placement_timing_name(PlacementTiming t) {
  return t == PlacementTiming::kAhead ? "ahead" : "online";
}

Realized execute(Placement& p, const Interconnect& net) {
  Executor x(net, p);
  x.run();
  Realized r;
  r.timing = p.timing();
  r.runs = x.take_runs();
  r.channels = x.links().stats();
  r.transfers = x.links().records();
  r.orders.resize(static_cast<std::size_t>(net.spec().devices));
  for (const TaskRun& t : r.runs) r.orders[static_cast<std::size_t>(t.device)].push_back(t.task);
  return r;
}

}  // namespace trainsim
