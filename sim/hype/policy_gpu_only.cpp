// gpu-only: the baseline. Every op runs on the GPU, in the runtime's rank order.
#include "sim/hype/policy.h"

namespace trainsim {

namespace {

class GpuOnlyPolicy final : public HypePolicy {
 public:
  std::string name() const override { return "gpu-only"; }
  bool offloads() const override { return false; }
  std::vector<OpSite> plan(const Characterization& c) const override {
    return std::vector<OpSite>(c.ops.size(), OpSite::kGpu);
  }
};

}  // namespace

std::unique_ptr<HypePolicy> make_gpu_only_policy(const PolicyParams&) {
  return std::make_unique<GpuOnlyPolicy>();
}

}  // namespace trainsim
