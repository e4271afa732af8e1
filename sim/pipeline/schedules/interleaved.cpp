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
  DeviceOrders order(const TaskGraph& g, const PlanCosts&, const ScheduleParams&) const override {
    const int p = g.layout().devices, v = g.layout().stages / p, m = g.spec().micro_batches;
    const int total = m * v;
    // The k-th forward (backward) of device d in batch b: micro-batches in groups of p, each
    // group through chunk 0, 1, ... (backwards through the chunks in reverse).
    auto task = [&](int b, int d, int k, bool forward) {
      const int group = k % (p * v);
      const int chunk = forward ? group / p : v - 1 - group / p;
      const int micro = (k / (p * v)) * p + k % p;
      return g.find(forward ? Pass::kForward : Pass::kBackward, b, micro, chunk * p + d);
    };
    return batch_by_batch(
        g,
        [&](int b, int d, std::vector<int>& o) {
          const int warmup = std::min((p - d - 1) * 2 + (v - 1) * p, total);
          for (int k = 0; k < warmup; ++k) o.push_back(task(b, d, k, true));
          for (int k = 0; k < total - warmup; ++k) {
            o.push_back(task(b, d, warmup + k, true));
            o.push_back(task(b, d, k, false));
          }
          for (int k = std::max(0, total - warmup); k < total; ++k)
            o.push_back(task(b, d, k, false));
        },
        [&](int b, int d, std::vector<int>& o) {
          for (int k = 0; k < total; ++k) o.push_back(task(b, d, k, true));
        });
  }
};

}  // namespace

const Schedule& interleaved_schedule() {
  static const Interleaved s;
  return s;
}

}  // namespace trainsim
