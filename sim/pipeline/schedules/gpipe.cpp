// GPipe (Huang et al., NeurIPS 2019): every micro-batch's forward, then every backward; the
// pipeline fills and drains once per batch, idle (p-1)/(m+p-1) of the time at uniform stages.
#include "sim/pipeline/list_scheduler.h"
#include "sim/pipeline/schedules/schedules.h"

namespace trainsim {
namespace {

class Gpipe final : public Schedule {
 public:
  std::string name() const override { return "gpipe"; }
  std::string description() const override {
    return "GPipe: all forwards of the batch's micro-batches, then all backwards; holds "
           "every micro-batch's activations";
  }
  PipelineLayout layout(const ScheduleParams& p) const override { return straight_layout(p); }
  DeviceOrders order(const TaskGraph& g, const PlanCosts& c) const override {
    ListPolicy policy;
    policy.priority = [](const Task& t) {
      return std::array<int, 4>{t.batch, bookkeeping_first(t), t.pass == Pass::kForward ? 0 : 1,
                                t.micro};
    };
    return list_schedule(g, c, policy);
  }
};

}  // namespace

const Schedule& gpipe_schedule() {
  static const Gpipe s;
  return s;
}

}  // namespace trainsim
