#include "sim/pipeline/replicas.h"

#include <stdexcept>
#include <vector>

namespace trainsim {

PipelineLayout replicate_layout(const PipelineLayout& base, int replicas) {
  PipelineLayout l;
  l.devices = base.devices * replicas;
  l.stages = base.stages;
  for (int r = 0; r < replicas; ++r) {
    for (const std::vector<int>& pipe : base.placement) {
      std::vector<int>& to = l.placement.emplace_back();
      for (int d : pipe) to.push_back(d + r * base.devices);
    }
    for (int p : base.micro_pipe) l.micro_pipe.push_back(p + r * base.pipes());
  }
  return l;
}

DeviceOrders replicate_orders(const TaskGraph& base, const DeviceOrders& orders, const TaskGraph& g,
                              int replicas) {
  const int devices = base.layout().devices, pipes = base.layout().pipes();
  const int micros = base.spec().micro_batches;
  DeviceOrders out(static_cast<std::size_t>(g.layout().devices));
  auto must = [](int i) {
    if (i < 0) throw std::logic_error("replicated pipeline: a task has no copy");
    return i;
  };
  // A gradient marker one replica lacks goes right after the last task it waits for, so the
  // all-reduce of a stage starts as soon as its gradients are complete (an interleaved
  // device's earlier chunk while it still computes a later one's backward).
  std::vector<int> missing(g.size(), 0);  // marker -> its inputs not yet in an order
  if (!base.replicated())
    for (std::size_t i = 0; i < g.size(); ++i)
      if (g.task(static_cast<int>(i)).pass == Pass::kGradDone)
        missing[i] = static_cast<int>(g.deps(static_cast<int>(i)).size());
  for (int r = 0; r < replicas; ++r)
    for (int d = 0; d < devices; ++d) {
      std::vector<int>& o = out[static_cast<std::size_t>(d + r * devices)];
      auto put = [&](int i) {
        o.push_back(must(i));
        if (base.replicated()) return;
        for (int u : g.users(i))
          if (g.task(u).pass == Pass::kGradDone && --missing[static_cast<std::size_t>(u)] == 0)
            o.push_back(u);
      };
      for (int i : orders[static_cast<std::size_t>(d)]) {
        const Task& t = base.task(i);
        const int pipe = t.pipe + r * pipes;
        switch (t.pass) {
          case Pass::kUpdate:
          case Pass::kGradDone:
            // The all-reduce's steps run beside compute, in no order.
            put(g.find(t.pass, t.batch, -1, t.stage, pipe));
            break;
          default:
            put(g.find(t.pass, t.batch, t.micro + r * micros, t.stage, pipe));
        }
      }
    }
  return out;
}

}  // namespace trainsim
