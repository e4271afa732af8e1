// listed: a Hype placement given as data (`hype.offload_types`), as `schedule: custom` gives a
// pipeline's: every op of a listed type (TensorFlow's names, as the paper's Table 1 has them)
// that the offload devices have a kernel for is planned there, whatever it costs, and runs as
// planned: no overlap rule moving it back, no idle GPU taking it over, no never-slower guard.
// `public-code` is this policy with [MatMul, Conv2D]; an empty list keeps every op on the GPU
// beside idle offload devices.
#include <algorithm>

#include "sim/hype/policy.h"

namespace trainsim {

namespace {

class ListedPolicy final : public HypePolicy {
 public:
  explicit ListedPolicy(std::vector<PaperOpType> types) : types_(std::move(types)) {}
  std::string name() const override { return "listed"; }
  std::vector<OpSite> plan(const Characterization& c) const override {
    std::vector<OpSite> p(c.ops.size(), OpSite::kGpu);
    for (std::size_t i = 0; i < c.ops.size(); ++i) {
      const OpCharacter& o = c.ops[i];
      if (o.offload.supported && std::find(types_.begin(), types_.end(), o.type) != types_.end())
        p[i] = OpSite::kOffload;
    }
    return p;
  }
  bool overlap_rule() const override { return false; }
  bool gpu_takes_leftovers() const override { return false; }

 private:
  std::vector<PaperOpType> types_;
};

}  // namespace

std::unique_ptr<HypePolicy> make_listed_policy(const PolicyParams& p) {
  return std::make_unique<ListedPolicy>(p.offload_types);
}

}  // namespace trainsim
