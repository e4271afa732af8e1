// Interleaved 1F1B (Narayanan et al., SC 2021, Megatron-LM): each of the p devices holds v
// model chunks, stages d, d+p, ..., d+(v-1)p, so a micro-batch crosses every device v times
// and the fill and drain shrink v-fold: idle time (1/v)(p-1)/m of the ideal time at uniform
// stages. The order is Megatron's: micro-batches in groups of p, each group through chunk 0,
// then chunk 1, ...; (p-d-1)*2 + (v-1)*p warm-up forwards on device d, then one forward
// and one backward, then the remaining backwards. Needs m a multiple of p.
#include <algorithm>

#include "sim/core/error.h"
#include "sim/pipeline/schedules/schedules.h"

namespace trainsim {
namespace {

class Interleaved final : public Schedule {
 public:
  std::string name() const override { return "interleaved"; }
  std::string description() const override {
    return "interleaved 1F1B (Megatron-LM): v model chunks per device (pipeline.chunks), "
           "v-fold smaller fill and drain; micro-batches a multiple of the devices";
  }
  PipelineLayout layout(const ScheduleParams& p) const override {
    if (p.chunks < 1) throw UserError("pipeline.chunks must be at least 1");
    if (p.micro_batches % p.devices != 0)
      throw UserError("schedule interleaved needs micro-batches (" +
                      std::to_string(p.micro_batches) + ") to be a multiple of the devices (" +
                      std::to_string(p.devices) + ")");
    PipelineLayout l;
    l.devices = p.devices;
    l.stages = p.devices * p.chunks;
    l.placement.emplace_back();
    for (int s = 0; s < l.stages; ++s) l.placement[0].push_back(s % p.devices);
    l.micro_pipe.assign(static_cast<std::size_t>(p.micro_batches), 0);
    return l;
  }
  DeviceOrders order(const TaskGraph& g, const PlanCosts&) const override {
    const int p = g.layout().devices, v = g.layout().stages / p, m = g.spec().micro_batches;
    const int total = m * v;
    DeviceOrders orders(static_cast<std::size_t>(p));
    for (int b = 0; b < static_cast<int>(g.spec().batches.size()); ++b) {
      const bool bp = g.spec().batches[static_cast<std::size_t>(b)] == BatchKind::kBackprop;
      for (int d = 0; d < p; ++d) {
        auto& o = orders[static_cast<std::size_t>(d)];
        // The k-th forward (backward) of device d: its micro-batch and chunk.
        auto task = [&](int k, bool forward) {
          const int group = k % (p * v);
          int chunk = group / p;
          if (!forward) chunk = v - 1 - chunk;
          const int micro = (k / (p * v)) * p + k % p;
          return g.find(forward ? Pass::kForward : Pass::kBackward, b, micro, chunk * p + d);
        };
        const int warmup = bp ? std::min((p - d - 1) * 2 + (v - 1) * p, total) : total;
        for (int k = 0; k < warmup; ++k) o.push_back(task(k, true));
        for (int k = 0; k < total - warmup; ++k) {
          o.push_back(task(warmup + k, true));
          o.push_back(task(k, false));
        }
        if (bp)
          for (int k = std::max(0, total - warmup); k < total; ++k) o.push_back(task(k, false));
        append_updates(g, b, d, o);
      }
    }
    return orders;
  }
};

}  // namespace

const Schedule& interleaved_schedule() {
  static const Interleaved s;
  return s;
}

}  // namespace trainsim
