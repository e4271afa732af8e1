// 1F1B, as PipeDream-Flush (Narayanan et al., ICML 2021) and DAPPLE (Fan et al., PPoPP 2021)
// run it: stage s starts at most p - s micro-batches before their backward, then alternates
// one forward and one backward. Same time as GPipe at uniform stages, but the first stage
// holds p micro-batches of activations instead of m.
#include "sim/pipeline/list_scheduler.h"
#include "sim/pipeline/schedules/schedules.h"

namespace trainsim {
namespace {

class OneFOneB final : public Schedule {
 public:
  std::string name() const override { return "1f1b"; }
  std::string description() const override {
    return "1F1B (PipeDream-Flush, DAPPLE): at most p-s micro-batches in flight on stage s, "
           "backward before forward";
  }
  PipelineLayout layout(const ScheduleParams& p) const override { return straight_layout(p); }
  DeviceOrders order(const TaskGraph& g, const PlanCosts& c) const override {
    const int stages = g.layout().stages;
    ListPolicy policy;
    policy.priority = [](const Task& t) {
      return std::array<int, 4>{t.batch, bookkeeping_first(t), t.pass == Pass::kForward ? 1 : 0,
                                t.micro};
    };
    policy.inflight_limit = [stages](const Task& t) { return stages - t.stage; };
    return list_schedule(g, c, policy);
  }
};

}  // namespace

const Schedule& one_f_one_b_schedule() {
  static const OneFOneB s;
  return s;
}

}  // namespace trainsim
