// dvfs: the baseline of He et al.'s Case 2, a GPU alone under NVIDIA's power management (the
// paper's "PMM"): a reactive controller that, every period, compares the system's average power
// over the period with the cap and steps the GPU's clock down one level if it was above, up one
// if it was below the cap by the hysteresis. Ops are never held back, so the peaks between two
// decisions may exceed the cap: the violations the paper counts against PMM.
#include "sim/hype/policy.h"

namespace trainsim {

namespace {

class DvfsPolicy final : public HypePolicy {
 public:
  explicit DvfsPolicy(const PolicyParams& p) : cap_(p.power_cap_w), dvfs_(p.dvfs) {}
  std::string name() const override { return "dvfs"; }
  bool offloads() const override { return false; }
  std::vector<OpSite> plan(const Characterization& c) const override {
    return std::vector<OpSite>(c.ops.size(), OpSite::kGpu);
  }
  double power_cap_w() const override { return cap_; }
  const DvfsParams* dvfs() const override { return &dvfs_; }
  int next_level(int level, int levels, double average_w, bool) const override {
    if (average_w > cap_ && level + 1 < levels) return level + 1;
    if (average_w < cap_ - dvfs_.hysteresis_w && level > 0) return level - 1;
    return level;
  }

 private:
  double cap_;
  DvfsParams dvfs_;
};

}  // namespace

std::unique_ptr<HypePolicy> make_dvfs_policy(const PolicyParams& p) {
  return std::make_unique<DvfsPolicy>(p);
}

}  // namespace trainsim
