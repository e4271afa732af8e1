#pragma once
// `phase_gp: oracle`: a Phase GP "prediction" made from the batch's own true gradient, with a
// chosen quality. For one layer (weights and bias as one vector g) it applies
//   p = m |g| (rho g/|g| + sqrt(1 - rho^2) n),
// n a unit vector orthogonal to g, so cos(p, g) = rho and |p| = m |g| exactly. n is drawn
// afresh for every batch (independent errors) or, `persistent`, comes from one fixed random
// direction per layer projected off each batch's g (an error that keeps its direction, as
// the real predictor's does). It needs the true gradient, so it costs a backward pass: it
// is a reference for what a predictor of that quality would give, not hardware.
// With rho = 1 and m = 1, p is g bit for bit (no noise is drawn, g is multiplied by 1).
#include <cstdint>
#include <vector>

#include "sim/core/rng.h"
#include "sim/core/state_archive.h"
#include "sim/nn/layer.h"

namespace trainsim {

class GradientOracle {
 public:
  GradientOracle(double cosine, double magnitude, bool persistent, std::uint64_t seed);
  /// Replaces the gradients of `params` (layer `k`'s, taken as one vector) by p.
  void perturb(std::size_t k, const std::vector<Param<float>*>& params);
  void checkpoint(StateArchive& a);

 private:
  double rho_, magnitude_;
  bool persistent_;
  Rng rng_;
  std::vector<std::vector<double>> fixed_;  // persistent: per layer, drawn on first use
  std::vector<double> n_;                   // this batch's noise direction
};

}  // namespace trainsim
