#pragma once
// ADA-GP's settings (Janfaza et al., MICRO '23; the adagp-* kinds): the phase schedule, the
// predictor and the ablations of Phase GP. adagp_keys.cpp parses and writes them.
#include <array>
#include <string>
#include <vector>

#include "sim/spec/specs.h"
#include "sim/yaml/key_ranges.h"

namespace trainsim {

namespace key_range {
/// ADA-GP's schedule: k Phase GP batches then m (>= 1) Phase BP batches per cycle.
inline constexpr IntRange kGpBatches{0, 10000};
inline constexpr IntRange kBpBatches{1, 10000};
/// ADA-GP's predictor: its hidden layer has channels x size^2 <= 2^24 values, its dense
/// layer hidden x P_max weights (P_max <= 2^30 + 1: a layer's fan-in plus its bias, bounded
/// by NetShape's volume limit), 2^54 at most, and its GEMMs samples x P x hidden MACs,
/// bounded by a layer's parameters (<= 2^30) times hidden: 2^54.
inline constexpr IntRange kPredictorSize{1, 256};
inline constexpr IntRange kPredictorChannels{1, 256};
}  // namespace key_range

struct AdaGpSettings final : SettingsOf<AdaGpSettings> {
  int warmup_epochs = 1;  ///< Warm Up: backprop only, predictor trained (paper: a few epochs)
  /// Phase GP : Phase BP batch ratios after the warm-up, as (k, m, epochs); epochs 0 = for
  /// the rest of training. Default 4:1 for 4 epochs, 3:1 for 4, 2:1 for 4, then 1:1.
  std::vector<std::array<int, 3>> schedule{{{4, 1, 4}}, {{3, 1, 4}}, {{2, 1, 4}}, {{1, 1, 0}}};
  int predictor_size = 8;      ///< side of the square map each predictor sample is resized to
  int predictor_channels = 4;  ///< channels of the predictor's conv layer
  double predictor_lr = 1e-4;  ///< Adam learning rate of the predictor (paper: 1e-4)
  /// Ablations of Phase GP, to measure what the predicted gradients contribute: "skip"
  /// leaves the weights alone (the batches only run forward); "zero" steps each layer's
  /// optimizer with a zero gradient, so only its state (SGD momentum, Adam's moments) moves
  /// the weights, as it does under the predictions.
  std::string phase_gp = "predict";
  /// `phase_gp: oracle` (a reference, not hardware): Phase GP backprops the batch and applies
  /// p = m |g| (rho g/|g| + sqrt(1 - rho^2) n), n a random unit vector orthogonal to the
  /// layer's true gradient g, drawn afresh each batch or (persistent) one fixed direction
  /// per layer, projected off each batch's g.
  double oracle_cosine = 1.0;     ///< rho, in [-1, 1]
  double oracle_magnitude = 1.0;  ///< m, >= 0
  bool oracle_persistent = false;
  /// Scale predictions by the per-layer least-squares gain (trainsim's addition; the paper
  /// applies the raw de-normalised predictions, calibrate: false).
  bool predictor_calibrate = true;
  /// Measure Phase GP's applied gradients against the batch's true gradient (an unobserved,
  /// untimed backward pass per Phase GP batch) and the true gradients' persistence; the
  /// training is bit-identical either way.
  bool diagnostics = false;

  bool operator==(const AdaGpSettings& o) const {
    return warmup_epochs == o.warmup_epochs && schedule == o.schedule &&
           predictor_size == o.predictor_size && predictor_channels == o.predictor_channels &&
           predictor_lr == o.predictor_lr && phase_gp == o.phase_gp &&
           oracle_cosine == o.oracle_cosine && oracle_magnitude == o.oracle_magnitude &&
           oracle_persistent == o.oracle_persistent &&
           predictor_calibrate == o.predictor_calibrate && diagnostics == o.diagnostics;
  }
};

}  // namespace trainsim
