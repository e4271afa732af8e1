// Chimera (Li and Hoefler, SC 2021): two pipelines in opposite directions over the same D
// devices. Device d holds stage d of the "down" pipe and stage D-1-d of the "up" pipe, so
// every stage has two replicas whose gradients are all-reduced before the update; each pipe
// carries half of the micro-batches. The order is list scheduling with backward first and,
// among equals, the deeper stage first: on uniform stages it gives Chimera's bubble ratio
// (D-2)/(2N+D-2) at equal forward and backward times (tests/test_pipeline_schedules.cpp).
#include "sim/core/error.h"
#include "sim/pipeline/list_scheduler.h"
#include "sim/pipeline/schedules/schedules.h"

namespace trainsim {
namespace {

class Chimera final : public Schedule {
 public:
  std::string name() const override { return "chimera"; }
  std::string description() const override {
    return "Chimera: two pipelines in opposite directions, every stage on two devices "
           "(weights replicated, gradients all-reduced), half the micro-batches each";
  }
  PipelineLayout layout(const ScheduleParams& p) const override {
    if (p.devices < 2 || p.devices % 2 != 0)
      throw UserError("schedule chimera needs an even number of devices (got " +
                      std::to_string(p.devices) + ")");
    if (p.micro_batches < 2 || p.micro_batches % 2 != 0)
      throw UserError(
          "schedule chimera needs an even number of micro-batches, half per "
          "direction (got " +
          std::to_string(p.micro_batches) + ")");
    PipelineLayout l = straight_layout(p);
    l.placement.emplace_back();
    for (int s = 0; s < p.devices; ++s) l.placement[1].push_back(p.devices - 1 - s);
    for (int m = p.micro_batches / 2; m < p.micro_batches; ++m)
      l.micro_pipe[static_cast<std::size_t>(m)] = 1;
    return l;
  }
  DeviceOrders order(const TaskGraph& g, const PlanCosts& c, const ScheduleParams&) const override {
    ListPolicy policy;
    policy.priority = [](const Task& t) {
      return std::array<int, 4>{t.batch, bookkeeping_first(t), t.pass == Pass::kForward ? 1 : 0,
                                -t.stage * 65537 + t.micro};
    };
    return list_schedule(g, c, policy);
  }
};

}  // namespace

const Schedule& chimera_schedule() {
  static const Chimera s;
  return s;
}

}  // namespace trainsim
