// Zero Bubble ZB-H1 (Qi et al., ICLR 2024): backward split into B (the input gradient, on
// the critical path) and W (the weight gradient, which nothing downstream waits for). Stage s
// runs 1F1B on F and B (p-s-1 warm-up forwards) and delays each W by s micro-batches, so
// the W passes fill the drain: idle (p-1)(F+B-W) instead of 1F1B's (p-1)(F+B+W), i.e.
// (p-1)/(3m) of the ideal time when F, B and W take equally long, and at most p
// micro-batches wait for their W on any stage (1F1B's peak).
#include <algorithm>

#include "sim/pipeline/schedules/schedules.h"

namespace trainsim {
namespace {

class ZeroBubbleH1 final : public Schedule {
 public:
  std::string name() const override { return "zb-h1"; }
  std::string description() const override {
    return "Zero Bubble ZB-H1: backward split into B and W, W deferred into the drain; idle "
           "(p-1)(F+B-W) where 1F1B idles (p-1)(F+B+W), at 1F1B's peak memory";
  }
  bool split_backward(const ScheduleParams&) const override { return true; }
  PipelineLayout layout(const ScheduleParams& p) const override { return straight_layout(p); }
  DeviceOrders order(const TaskGraph& g, const PlanCosts&, const ScheduleParams&) const override {
    const int p = g.layout().devices, m = g.spec().micro_batches;
    return batch_by_batch(g, [&](int b, int s, std::vector<int>& o) {
      const int warmup = std::min(p - s - 1, m), delay = s;
      auto w = [&](int k) { return g.find(Pass::kBackwardWeight, b, k, s); };
      int next_f = 0;
      for (; next_f < warmup; ++next_f) o.push_back(g.find(Pass::kForward, b, next_f, s));
      for (int k = 0; k < m; ++k) {
        if (next_f < m) o.push_back(g.find(Pass::kForward, b, next_f++, s));
        o.push_back(g.find(Pass::kBackwardData, b, k, s));
        if (k - delay >= 0) o.push_back(w(k - delay));
      }
      for (int k = std::max(0, m - delay); k < m; ++k) o.push_back(w(k));
    });
  }
};

}  // namespace

const Schedule& zero_bubble_h1_schedule() {
  static const ZeroBubbleH1 s;
  return s;
}

}  // namespace trainsim
