#pragma once
// An optimizer turns the gradients accumulated over a batch into a parameter update.
// The common pre-processing (batch reduction, weight decay, element-wise clipping) is in
// prepare_gradient() so every optimizer applies it identically.
#include <string>
#include <vector>

#include "sim/config/specs.h"
#include "sim/core/state_archive.h"
#include "sim/nn/layer.h"

namespace trainsim {

template <typename T>
class Optimizer {
 public:
  explicit Optimizer(const OptimizerSpec& spec) : spec_(spec) {}
  virtual ~Optimizer() = default;
  virtual std::string kind() const = 0;
  /// Applies one update to every param from its accumulated grad (`batch` samples).
  /// The grads are left reduced/clipped (as applied) for inspection.
  virtual void step(const std::vector<Param<T>*>& params, int batch) = 0;
  /// Saves or restores the state carried from step to step (sim/core/state_archive.h).
  virtual void checkpoint(StateArchive& a) = 0;
  const OptimizerSpec& spec() const { return spec_; }

 protected:
  /// grad <- clip(reduce(grad) + weight_decay * value). `reduce` divides by the batch size
  /// for reduction "mean" and leaves the sum for "sum" (the seed MLP's convention).
  void prepare_gradient(Param<T>& p, int batch) const;

  OptimizerSpec spec_;
};

}  // namespace trainsim
