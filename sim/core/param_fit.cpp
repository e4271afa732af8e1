#include "sim/core/param_fit.h"

#include <algorithm>
#include <cmath>

#include "sim/core/interrupt.h"

namespace trainsim {

namespace {

// A value at a bound of its range (0, or 1 for a fraction) starts just inside it, where the
// search space is finite.
double to_search(const FitParam& p) {
  const double v = std::max(*p.value, 1e-12);
  if (!p.fraction) return std::log(v);
  const double f = std::min(v, 1 - 1e-12);
  return std::log(f / (1 - f));
}

void from_search(const FitParam& p, double x) {
  *p.value = p.fraction ? 1 / (1 + std::exp(-x)) : std::exp(x);
  for (double* t : p.tied) *t = *p.value;
}

}  // namespace

NelderMeadResult fit_params(const std::vector<FitParam>& params,
                            const std::function<double()>& objective,
                            const NelderMeadOptions& options) {
  std::vector<double> start;
  for (const FitParam& p : params) start.push_back(to_search(p));
  auto f = [&](const std::vector<double>& x) {
    check_interrupt();  // a fit evaluates the objective thousands of times
    for (std::size_t i = 0; i < params.size(); ++i) from_search(params[i], x[i]);
    return objective();
  };
  const NelderMeadResult r = nelder_mead(f, start, options);
  f(r.x);
  return r;
}

}  // namespace trainsim
