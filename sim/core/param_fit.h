#pragma once
// Fitting a model's named parameters in place (sim/hype/calibration.h, sim/gpu/calibration.h):
// each parameter is searched where every value is allowed (the logarithm of a positive value,
// the logit of a fraction), by Nelder-Mead, and left at the best point found.
#include <functional>
#include <string>
#include <vector>

#include "sim/core/nelder_mead.h"

namespace trainsim {

struct FitParam {
  std::string key;
  double* value;
  bool fraction = false;           ///< in (0, 1): searched as its logit
  std::vector<double*> tied = {};  ///< set to the same value
};

/// Minimises `objective` (which reads the parameters through their pointers) over `params`,
/// polling for Ctrl-C between evaluations. The parameters end at the best point found.
NelderMeadResult fit_params(const std::vector<FitParam>& params,
                            const std::function<double()>& objective,
                            const NelderMeadOptions& options = {});

}  // namespace trainsim
