#pragma once
// ADA-GP diagnostics (`diagnostics: true`): how good the gradients Phase GP applies are, in
// place, and how predictable the true gradients are at all. Per layer with parameters
// (weights and bias as one vector), over an epoch:
//  * gp_cosine, gp_magnitude: cosine and norm ratio of the gradient a Phase GP batch applied
//    to the layer against that batch's true gradient, taken at the weights the batch started
//    from (Phase GP updates a layer before the next one's prediction, so later layers are
//    predicted from already-updated earlier layers; the truth is the backprop gradient the
//    batch would have had).
//  * gp_persistence: cosine between the error components (the applied gradient's part
//    orthogonal to the truth) of consecutive Phase GP batches: near 0 for independent
//    errors, near 1 when the predictor errs in one direction.
//  * grad_prev_cosine, grad_mean_cosine: cosine of each true gradient with the previous
//    batch's and with the running mean of all earlier ones (rate 0.1, as `phase_gp: mean`):
//    what a predictor that remembers past gradients could exploit.
// The caller supplies the truth: after a backprop batch's backward pass, or after an
// unobserved measurement pass in Phase GP (AdaGp).
#include <cstdint>
#include <vector>

#include "sim/core/state_archive.h"
#include "sim/nn/layer.h"
#include "sim/techniques/predictor_stats.h"

namespace trainsim {

class GradientDiagnostics {
 public:
  static constexpr double kMeanRate = 0.1;
  explicit GradientDiagnostics(std::vector<std::vector<Param<float>*>> layer_params);

  /// The current Param::grad of every layer is this batch's true gradient.
  void record_truth();
  /// Layer `k`'s Param::grad is what this Phase GP batch applies to it.
  void record_applied(std::size_t k);
  /// This Phase GP batch applies nothing to layer `k` (`phase_gp: skip`).
  void record_nothing(std::size_t k);
  /// Adds the epoch's figures to `stats` (one per layer with parameters); resets them.
  void take(std::vector<PredictorLayerStats>& stats);
  void checkpoint(StateArchive& a);

 private:
  struct Mean {  // a mean over the batches where the figure is defined
    double sum = 0;
    std::int64_t count = 0;
    void add(double x) { sum += x, ++count; }
    double value() const;  // NaN when nothing was added
  };
  struct Layer {
    std::vector<float> truth, prev, mean, error;  // error: last Phase GP error component
    bool has_prev = false, has_error = false;
    std::int64_t gp_batches = 0;
    Mean gp_cosine, gp_magnitude, persistence, prev_cosine, mean_cosine;
  };
  std::vector<std::vector<Param<float>*>> params_;
  std::vector<Layer> layers_;
  std::vector<float> applied_;
};

}  // namespace trainsim
