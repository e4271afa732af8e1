#pragma once
// An optimizer turns the gradients accumulated over a batch into a parameter update.
// The common pre-processing (batch reduction, weight decay, element-wise clipping) is in
// prepare_gradient() so every optimizer applies it identically.
#include <functional>
#include <string>
#include <vector>

#include "sim/core/state_archive.h"
#include "sim/nn/layer.h"
#include "sim/spec/specs.h"

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
  /// Sets the learning rate of the steps from now on (a schedule's, sim/spec/specs.h).
  void set_lr(double lr) { spec_.lr = lr; }

 protected:
  /// grad <- clip(reduce(grad) + weight_decay * value) for elements [begin, end). `reduce`
  /// divides by the batch size for reduction "mean" and leaves the sum for "sum" (the seed
  /// MLP's convention).
  void prepare_gradient(Param<T>& p, int batch, std::size_t begin, std::size_t end) const;
  /// Runs fn(begin, end) over ranges covering a param's `count` elements, in parallel when
  /// it is large (sim/core/parallel.h: element-wise, so the thread count changes nothing).
  static void for_ranges(std::size_t count,
                         const std::function<void(std::size_t, std::size_t)>& fn);

  OptimizerSpec spec_;
};

}  // namespace trainsim
