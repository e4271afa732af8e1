#pragma once
// Adam (Kingma & Ba 2015) with bias correction; weight_decay is plain L2 added to the
// gradient (not AdamW).
#include "sim/optim/optimizer.h"

namespace trainsim {

template <typename T>
class Adam final : public Optimizer<T> {
 public:
  explicit Adam(const OptimizerSpec& spec) : Optimizer<T>(spec) {}
  std::string kind() const override { return "adam"; }
  void step(const std::vector<Param<T>*>& params, int batch) override;
  void checkpoint(StateArchive& a) override {
    a.vector(m_);
    a.vector(v_);
    a.value(t_);
  }

 private:
  std::vector<std::vector<T>> m_, v_;
  std::int64_t t_ = 0;
};

struct OptimizerWork;
/// Per parameter: both moments (m, v) as state; two moment updates, a square root, a
/// division, a scale and a subtraction (10 operations).
OptimizerWork adam_work(const OptimizerSpec& spec);

}  // namespace trainsim
