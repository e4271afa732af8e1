#pragma once
// SGD with optional momentum (PyTorch convention: v = mu v + g, w -= lr v).
#include "sim/optim/optimizer.h"

namespace trainsim {

template <typename T>
class Sgd final : public Optimizer<T> {
 public:
  explicit Sgd(const OptimizerSpec& spec) : Optimizer<T>(spec) {}
  std::string kind() const override { return "sgd"; }
  void step(const std::vector<Param<T>*>& params, int batch) override;
  void checkpoint(StateArchive& a) override { a.vector(velocity_); }

 private:
  std::vector<std::vector<T>> velocity_;  // one per param, created on first step
};

struct OptimizerWork;
/// Per parameter: with momentum, the velocity (v = mu v + g, w -= lr v: 4 operations);
/// without, w -= lr g (2).
OptimizerWork sgd_work(const OptimizerSpec& spec);

}  // namespace trainsim
