// GPipe (Huang et al., NeurIPS 2019): on every device, the forwards of all the batch's
// micro-batches, then all their backwards, then the update: the pipeline fills and drains
// once per batch (idle (p-1)/(m+p-1) of the time at uniform stages) and every stage holds
// all m micro-batches' activations at the turn.
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
  DeviceOrders order(const TaskGraph& g, const PlanCosts&, const ScheduleParams&) const override {
    const int m = g.spec().micro_batches;
    return batch_by_batch(g, [&](int b, int s, std::vector<int>& o) {
      for (int k = 0; k < m; ++k) o.push_back(g.find(Pass::kForward, b, k, s));
      for (int k = 0; k < m; ++k) o.push_back(g.find(Pass::kBackward, b, k, s));
    });
  }
};

}  // namespace

const Schedule& gpipe_schedule() {
  static const Gpipe s;
  return s;
}

}  // namespace trainsim
