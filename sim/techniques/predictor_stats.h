#pragma once
// ADA-GP's per-layer statistics of its predictor (TrainingTechnique::take_layer_stats), as
// its reports (adagp_report.h) and checkpoints read them.
#include <cstdint>
#include <limits>
#include <vector>

#include "sim/techniques/training_technique.h"

namespace trainsim {

/// How well a gradient predictor (ADA-GP) did on one layer over the Warm Up and Phase BP
/// batches of an epoch, where the true gradients are known (means over those batches).
struct PredictorLayerStats {
  std::size_t layer = 0;     ///< network layer index
  std::int64_t batches = 0;  ///< batches measured (0: no backprop batch this epoch)
  double mse = 0;            ///< in units of the layer's running gradient RMS
  double mape = 0;
  double cosine = 0;  ///< of predicted vs true gradients
  double gain = 0;    ///< calibration gain at the end of the epoch (applied in Phase GP)
  // With `diagnostics: true` (GradientDiagnostics); NaN where not measured or undefined.
  std::int64_t gp_batches = 0;             ///< Phase GP batches measured
  double gp_cosine = kNotMeasured;         ///< applied vs true gradient, Phase GP
  double gp_magnitude = kNotMeasured;      ///< |applied| / |true|, Phase GP
  double gp_persistence = kNotMeasured;    ///< cosine of consecutive Phase GP error components
  double grad_prev_cosine = kNotMeasured;  ///< true gradient vs the previous batch's
  double grad_mean_cosine = kNotMeasured;  ///< true gradient vs the running mean of earlier ones
  static constexpr double kNotMeasured = std::numeric_limits<double>::quiet_NaN();
};

/// One epoch's: a row per layer the predictor serves.
struct PredictorStats final : LayerStats {
  std::vector<PredictorLayerStats> layers;
};

/// The rows of `stats`, which ADA-GP made (std::logic_error for another technique's).
const std::vector<PredictorLayerStats>& predictor_rows(const LayerStats& stats);

}  // namespace trainsim
