#pragma once
// Nelder-Mead's downhill simplex: minimises a function of a few real parameters without
// derivatives, deterministically (the same start gives the same result), for fitting model
// parameters to measured figures (sim/hype/calibration.h). Bounds are the caller's business:
// fit parameters in a space where every value is allowed (logarithms of positive parameters,
// logits of fractions).
#include <functional>
#include <vector>

namespace trainsim {

struct NelderMeadOptions {
  double step = 0.5;           ///< initial simplex: the start plus `step` along each axis
  int max_evaluations = 4000;  ///< per run, restarts included
  /// Stop when the simplex's values differ by at most this much (absolute) and its vertices by
  /// at most `x_tolerance` in every coordinate.
  double f_tolerance = 1e-12;
  double x_tolerance = 1e-9;
  /// Restart from the best vertex with a fresh simplex this many times after convergence: a
  /// collapsed simplex can stop short of a minimum, and a restart that finds nothing better
  /// costs little.
  int restarts = 2;
};

struct NelderMeadResult {
  std::vector<double> x;  ///< the best point found
  double f = 0;           ///< the function there
  int evaluations = 0;
  bool converged = false;  ///< the last run met the tolerances before the evaluation budget
};

/// Minimises `f` from `start` (at least one coordinate).
NelderMeadResult nelder_mead(const std::function<double(const std::vector<double>&)>& f,
                             const std::vector<double>& start,
                             const NelderMeadOptions& options = {});

}  // namespace trainsim
