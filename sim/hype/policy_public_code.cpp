// public-code: what the authors' public code of Hype-training (github.com/sayounara/
// Green_training, a TensorFlow 1.8 fork, read at 3be7482) runs, as opposed to what the paper
// describes. The code has no characterization, slack analysis, overlap check or runtime
// scheduler: MatMul and the forward Conv2D lose their GPU kernels (matmul_op.cc, conv_ops.cc),
// so TensorFlow's soft placement puts them on the CPU device, whose kernels call the FPGA
// through blocking OpenCL calls; every other op stays on the GPU. The only decision logic is
// an unbuilt draft for MatMul (fpga_runtime_src/MatConvHybrid.cpp) whose performance and power
// models exist nowhere in the repository, so it is not modelled. Hence the plan: every MatMul
// and forward Conv2D the offload device has a kernel for goes there, whatever it costs; no
// overlap rule, no idle GPU taking an op planned for a busy FPGA (the call blocks until the
// FPGA is free), and no never-slower guard. docs/hype.md compares it with `energy`.
#include "sim/hype/policy.h"

namespace trainsim {

namespace {

class PublicCodePolicy final : public HypePolicy {
 public:
  std::string name() const override { return "public-code"; }
  std::vector<OpSite> plan(const Characterization& c) const override {
    std::vector<OpSite> p(c.ops.size(), OpSite::kGpu);
    for (std::size_t i = 0; i < c.ops.size(); ++i) {
      const OpCharacter& o = c.ops[i];
      if ((o.type == PaperOpType::kMatMul || o.type == PaperOpType::kConv2D) && o.offload.supported)
        p[i] = OpSite::kOffload;
    }
    return p;
  }
  bool overlap_rule() const override { return false; }
  bool gpu_takes_leftovers() const override { return false; }
};

}  // namespace

std::unique_ptr<HypePolicy> make_public_code_policy(const PolicyParams&) {
  return std::make_unique<PublicCodePolicy>();
}

}  // namespace trainsim
