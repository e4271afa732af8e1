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

}  // namespace trainsim
