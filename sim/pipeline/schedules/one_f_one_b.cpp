// 1F1B, as PipeDream-Flush (Narayanan et al., ICML 2021) and DAPPLE (Fan et al., PPoPP 2021)
// run it: stage s starts p-s-1 warm-up forwards, then alternates one forward and one
// backward, then drains the remaining backwards, then updates. Same time as GPipe at
// uniform stages, but stage s holds at most p-s micro-batches of activations instead of m.
#include <algorithm>

#include "sim/pipeline/schedules/schedules.h"

namespace trainsim {
namespace {

class OneFOneB final : public Schedule {
 public:
  std::string name() const override { return "1f1b"; }
  std::string description() const override {
    return "1F1B (PipeDream-Flush, DAPPLE): p-s-1 warm-up forwards on stage s, then one "
           "forward, one backward; at most p-s micro-batches in flight";
  }
  PipelineLayout layout(const ScheduleParams& p) const override { return straight_layout(p); }
  DeviceOrders order(const TaskGraph& g, const PlanCosts&, const ScheduleParams&) const override {
    const int p = g.layout().devices, m = g.spec().micro_batches;
    return batch_by_batch(g, [&](int b, int s, std::vector<int>& o) {
      auto f = [&](int k) { return g.find(Pass::kForward, b, k, s); };
      auto back = [&](int k) { return g.find(Pass::kBackward, b, k, s); };
      const int warmup = std::min(p - s - 1, m);
      for (int k = 0; k < warmup; ++k) o.push_back(f(k));
      for (int k = 0; k < m - warmup; ++k) {
        o.push_back(f(warmup + k));
        o.push_back(back(k));
      }
      for (int k = m - warmup; k < m; ++k) o.push_back(back(k));
    });
  }
};

}  // namespace

const Schedule& one_f_one_b_schedule() {
  static const OneFOneB s;
  return s;
}

}  // namespace trainsim
