// power-cap: He et al.'s Case 2 (Sec. 3.4). The plan is Case 1's; at run time an idle device
// starts an op only if the op's peak power there, with every other device at its current peak
// (or idle static), keeps the system at or under the cap, so the cap holds at every instant by
// construction. When none fits the device waits for the next completion; the GPU chooses first.
#include "sim/hype/policy.h"

namespace trainsim {

namespace {

class PowerCapPolicy final : public CappedPolicy {
 public:
  using CappedPolicy::CappedPolicy;
  std::string name() const override { return "power-cap"; }
};

}  // namespace

std::unique_ptr<HypePolicy> make_power_cap_policy(const PolicyParams& p) {
  return std::make_unique<PowerCapPolicy>(p.power_cap_w);
}

}  // namespace trainsim
