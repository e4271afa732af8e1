#include "sim/pipeline/schedules/schedules.h"

namespace trainsim {

void append_updates(const TaskGraph& g, int b, int device, std::vector<int>& order) {
  const PipelineLayout& l = g.layout();
  for (int p = 0; p < l.pipes(); ++p)
    for (int s = l.stages; s-- > 0;) {
      if (l.device(p, s) != device) continue;
      const int done = g.find(Pass::kGradDone, b, -1, s, p);
      if (done >= 0) order.push_back(done);
      order.push_back(g.find(Pass::kUpdate, b, -1, s, p));
    }
}

DeviceOrders batch_by_batch(const TaskGraph& g, const BatchOrder& backprop,
                            const BatchOrder& forward_only) {
  const PipelineLayout& l = g.layout();
  DeviceOrders orders(static_cast<std::size_t>(l.devices));
  for (int b = 0; b < static_cast<int>(g.spec().batches.size()); ++b)
    for (int d = 0; d < l.devices; ++d) {
      auto& o = orders[static_cast<std::size_t>(d)];
      if (g.spec().batches[static_cast<std::size_t>(b)] == BatchKind::kBackprop) {
        backprop(b, d, o);
      } else if (forward_only) {
        forward_only(b, d, o);
      } else {
        for (int m = 0; m < g.spec().micro_batches; ++m)
          for (int p = 0; p < l.pipes(); ++p)
            for (int s = 0; s < l.stages; ++s)
              if (l.device(p, s) == d && l.micro_pipe[static_cast<std::size_t>(m)] == p)
                o.push_back(g.find(Pass::kForward, b, m, s, p));
      }
      append_updates(g, b, d, o);
    }
  return orders;
}

}  // namespace trainsim
