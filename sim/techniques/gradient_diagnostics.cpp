#include "sim/techniques/gradient_diagnostics.h"

#include <cmath>
#include <limits>

namespace trainsim {

namespace {

void gather(const std::vector<Param<float>*>& params, std::vector<float>& out) {
  out.clear();
  for (const Param<float>* p : params)
    out.insert(out.end(), p->grad.data(), p->grad.data() + p->grad.size());
}

double dot(const std::vector<float>& a, const std::vector<float>& b) {
  double s = 0;
  for (std::size_t i = 0; i < a.size(); ++i) s += static_cast<double>(a[i]) * b[i];
  return s;
}

// NaN when either vector is zero: the angle is undefined.
double cosine(const std::vector<float>& a, const std::vector<float>& b) {
  const double aa = dot(a, a), bb = dot(b, b);
  if (aa == 0 || bb == 0) return std::numeric_limits<double>::quiet_NaN();
  return dot(a, b) / std::sqrt(aa * bb);
}

}  // namespace

double GradientDiagnostics::Mean::value() const {
  return count > 0 ? sum / static_cast<double>(count) : std::numeric_limits<double>::quiet_NaN();
}

GradientDiagnostics::GradientDiagnostics(std::vector<std::vector<Param<float>*>> layer_params)
    : params_(std::move(layer_params)), layers_(params_.size()) {}

void GradientDiagnostics::record_truth() {
  for (std::size_t k = 0; k < layers_.size(); ++k) {
    Layer& l = layers_[k];
    if (l.has_prev) std::swap(l.prev, l.truth);
    gather(params_[k], l.truth);
    if (!l.has_prev) {  // the first true gradient starts the mean
      l.prev = l.mean = l.truth;
      l.has_prev = true;
      continue;
    }
    const double c_prev = cosine(l.truth, l.prev), c_mean = cosine(l.truth, l.mean);
    if (!std::isnan(c_prev)) l.prev_cosine.add(c_prev);
    if (!std::isnan(c_mean)) l.mean_cosine.add(c_mean);
    for (std::size_t i = 0; i < l.mean.size(); ++i)
      l.mean[i] += static_cast<float>(kMeanRate) * (l.truth[i] - l.mean[i]);
  }
}

void GradientDiagnostics::record_applied(std::size_t k) {
  Layer& l = layers_[k];
  gather(params_[k], applied_);
  ++l.gp_batches;
  const double tt = dot(l.truth, l.truth);
  const double c = cosine(applied_, l.truth);
  if (!std::isnan(c)) l.gp_cosine.add(c);
  if (tt > 0) l.gp_magnitude.add(std::sqrt(dot(applied_, applied_) / tt));
  // The error component: what of the applied gradient is not along the truth.
  const double along = tt > 0 ? dot(applied_, l.truth) / tt : 0;
  for (std::size_t i = 0; i < applied_.size(); ++i)
    applied_[i] -= static_cast<float>(along) * l.truth[i];
  if (l.has_error) {
    const double p = cosine(applied_, l.error);
    if (!std::isnan(p)) l.persistence.add(p);
  }
  std::swap(l.error, applied_);
  l.has_error = true;
}

void GradientDiagnostics::record_nothing(std::size_t k) {
  Layer& l = layers_[k];
  ++l.gp_batches;
  if (dot(l.truth, l.truth) > 0) l.gp_magnitude.add(0);
}

void GradientDiagnostics::take(std::vector<PredictorLayerStats>& stats) {
  for (std::size_t k = 0; k < layers_.size() && k < stats.size(); ++k) {
    Layer& l = layers_[k];
    PredictorLayerStats& s = stats[k];
    s.gp_batches = l.gp_batches;
    s.gp_cosine = l.gp_cosine.value();
    s.gp_magnitude = l.gp_magnitude.value();
    s.gp_persistence = l.persistence.value();
    s.grad_prev_cosine = l.prev_cosine.value();
    s.grad_mean_cosine = l.mean_cosine.value();
    l.gp_batches = 0;
    l.gp_cosine = l.gp_magnitude = l.persistence = l.prev_cosine = l.mean_cosine = Mean{};
  }
}

void GradientDiagnostics::checkpoint(StateArchive& a) {
  a.section("diagnostics");
  for (Layer& l : layers_) {
    a.vector(l.truth);
    a.vector(l.prev);
    a.vector(l.mean);
    a.vector(l.error);
    a.value(l.has_prev);
    a.value(l.has_error);
    a.value(l.gp_batches);
    for (Mean* m :
         {&l.gp_cosine, &l.gp_magnitude, &l.persistence, &l.prev_cosine, &l.mean_cosine}) {
      a.value(m->sum);
      a.value(m->count);
    }
  }
}

}  // namespace trainsim
