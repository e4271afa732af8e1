// gpu-only: the baseline. Every op runs on the GPU, in the runtime's rank order.
#include "sim/hype/policy.h"

namespace trainsim {

namespace {

class GpuOnlyPolicy final : public HypePolicy {
 public:
  std::string name() const override { return "gpu-only"; }
  std::string description() const override { return "every op on the GPU"; }
  std::vector<Placement> plan(const Characterization& c) const override {
    return std::vector<Placement>(c.ops.size(), Placement::kGpu);
  }
};

}  // namespace

std::unique_ptr<HypePolicy> make_gpu_only_policy(const PolicyParams&) {
  return std::make_unique<GpuOnlyPolicy>();
}

}  // namespace trainsim
