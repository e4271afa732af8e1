#include "sim/techniques/gradient_oracle.h"

#include <algorithm>
#include <cmath>

namespace trainsim {

GradientOracle::GradientOracle(double cosine, double magnitude, bool persistent, std::uint64_t seed)
    : rho_(cosine), magnitude_(magnitude), persistent_(persistent), rng_(seed) {}

void GradientOracle::perturb(std::size_t k, const std::vector<Param<float>*>& params) {
  std::size_t size = 0;
  double gg = 0;
  for (const Param<float>* p : params) {
    size += p->grad.size();
    for (std::size_t i = 0; i < p->grad.size(); ++i)
      gg += static_cast<double>(p->grad[i]) * p->grad[i];
  }
  if (gg == 0) return;  // no gradient: p = m |g| (...) = 0, which the grads already are
  const double along = magnitude_ * rho_;
  double across = magnitude_ * std::sqrt(gg) * std::sqrt(std::max(0.0, 1 - rho_ * rho_));
  if (across > 0) {
    if (persistent_) {
      if (fixed_.size() <= k) fixed_.resize(k + 1);
      if (fixed_[k].size() != size) {
        fixed_[k].resize(size);
        for (double& x : fixed_[k]) x = rng_.normal();
      }
      n_ = fixed_[k];
    } else {
      n_.resize(size);
      for (double& x : n_) x = rng_.normal();
    }
    // Gram-Schmidt: take g's component out of the random direction, then normalise it.
    double ng = 0;
    std::size_t at = 0;
    for (const Param<float>* p : params)
      for (std::size_t i = 0; i < p->grad.size(); ++i) ng += n_[at++] * p->grad[i];
    at = 0;
    double nn = 0;
    for (const Param<float>* p : params)
      for (std::size_t i = 0; i < p->grad.size(); ++i, ++at) {
        n_[at] -= ng / gg * p->grad[i];
        nn += n_[at] * n_[at];
      }
    // A one-element layer has no direction orthogonal to g: only its component along g stays.
    across = nn > 0 ? across / std::sqrt(nn) : 0;
  }
  std::size_t at = 0;
  for (Param<float>* p : params)
    for (std::size_t i = 0; i < p->grad.size(); ++i, ++at) {
      const double g = p->grad[i];
      p->grad[i] = static_cast<float>(across > 0 ? along * g + across * n_[at] : along * g);
    }
}

void GradientOracle::checkpoint(StateArchive& a) {
  a.section("oracle");
  std::string state = rng_.state();
  a.string(state);
  if (a.loading()) rng_.set_state(state);
  a.vector(fixed_);
}

}  // namespace trainsim
