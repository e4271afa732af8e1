// energy: He et al.'s Case 1 (Sec. 3.4). Without a cap "running operations on FPGA always saves
// power", so the plan offloads every candidate that is faster there, and every small candidate
// whose slower run fits in its slack (Sec. 3.3); the runtime then keeps the iteration no longer
// than on the GPU alone.
#include "sim/hype/policy.h"

namespace trainsim {

std::vector<OpSite> characterized_plan(const Characterization& c) {
  std::vector<OpSite> plan;
  plan.reserve(c.ops.size());
  for (const OpCharacter& o : c.ops)
    plan.push_back(o.planned_offload() ? OpSite::kOffload : OpSite::kGpu);
  return plan;
}

namespace {

class EnergyPolicy final : public HypePolicy {
 public:
  std::string name() const override { return "energy"; }
  std::vector<OpSite> plan(const Characterization& c) const override {
    return characterized_plan(c);
  }
  bool never_slower() const override { return true; }
};

}  // namespace

std::unique_ptr<HypePolicy> make_energy_policy(const PolicyParams&) {
  return std::make_unique<EnergyPolicy>();
}

}  // namespace trainsim
