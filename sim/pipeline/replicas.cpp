#include "sim/pipeline/replicas.h"

#include <stdexcept>

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
  for (int r = 0; r < replicas; ++r)
    for (int d = 0; d < devices; ++d) {
      std::vector<int>& o = out[static_cast<std::size_t>(d + r * devices)];
      for (int i : orders[static_cast<std::size_t>(d)]) {
        const Task& t = base.task(i);
        const int pipe = t.pipe + r * pipes;
        switch (t.pass) {
          case Pass::kUpdate:
            // The gradient marker the all-reduce starts from, unless one replica had it too;
            // the all-reduce's steps run beside compute, in no order.
            if (!base.replicated())
              o.push_back(must(g.find(Pass::kGradDone, t.batch, -1, t.stage, pipe)));
            o.push_back(must(g.find(Pass::kUpdate, t.batch, -1, t.stage, pipe)));
            break;
          case Pass::kGradDone:
            o.push_back(must(g.find(Pass::kGradDone, t.batch, -1, t.stage, pipe)));
            break;
          default:
            o.push_back(must(g.find(t.pass, t.batch, t.micro + r * micros, t.stage, pipe)));
        }
      }
    }
  return out;
}

}  // namespace trainsim
