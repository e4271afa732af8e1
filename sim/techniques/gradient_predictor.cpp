#include "sim/techniques/gradient_predictor.h"
#include "sim/techniques/adagp_settings.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "sim/core/error.h"
#include "sim/nn/layer_registry.h"
#include "sim/nn/tensor_state.h"

namespace trainsim {

namespace {

// The predictor's input side S must at least hold its 3x3 kernel's centre.
int checked_size(int s) {
  if (s < 1) throw UserError("technique: predictor_size must be at least 1");
  return s;
}

// Source ranges [first, second) of each of the S outputs along an axis of n inputs:
// adaptive average pooling (PyTorch's bins) when n >= S, nearest-neighbour when n < S.
std::vector<std::pair<int, int>> bins(int n, int s) {
  std::vector<std::pair<int, int>> r(static_cast<std::size_t>(s));
  for (int i = 0; i < s; ++i) {
    const int lo = static_cast<int>(static_cast<std::int64_t>(i) * n / s);
    const int hi =
        n >= s ? static_cast<int>((static_cast<std::int64_t>(i + 1) * n + s - 1) / s) : lo + 1;
    r[static_cast<std::size_t>(i)] = {lo, hi};
  }
  return r;
}

// Resizes an h x w map to s x s (the fixed "pooling" preprocessing).
void resize_map(const float* src, int h, int w, int s, float* dst) {
  const auto rows = bins(h, s), cols = bins(w, s);
  for (int i = 0; i < s; ++i) {
    for (int j = 0; j < s; ++j) {
      double sum = 0;
      const auto [r0, r1] = rows[static_cast<std::size_t>(i)];
      const auto [c0, c1] = cols[static_cast<std::size_t>(j)];
      for (int r = r0; r < r1; ++r)
        for (int c = c0; c < c1; ++c) sum += src[static_cast<std::size_t>(r) * w + c];
      dst[static_cast<std::size_t>(i) * s + j] = static_cast<float>(sum / ((r1 - r0) * (c1 - c0)));
    }
  }
}

// The predictor's per-sample target size for every layer with parameters; the largest is
// the width of its output layer.
int largest_target(Network<float>& net) {
  int p = 0;
  for (std::size_t i = 0; i < net.size(); ++i) {
    const LayerFamily family = layer_family(net.layer(i).type());
    if (!net.has_params(i) || (family != LayerFamily::kConv && family != LayerFamily::kDense))
      continue;
    const auto params = net.layer(i).params();
    const Tensor<float>& w = params[0]->value;
    const bool conv = family == LayerFamily::kConv;
    const int fan_in = conv ? static_cast<int>(w.sample_size()) : w.n();
    p = std::max(p, fan_in + (params.size() > 1 ? 1 : 0));
  }
  return p;
}

OptimizerSpec predictor_adam(const TechniqueSpec& spec) {
  OptimizerSpec o;
  o.kind = "adam";
  o.lr = spec.get<AdaGpSettings>().predictor_lr;
  o.reduction = "mean";
  return o;
}

}  // namespace

GradientPredictor::GradientPredictor(const TechniqueSpec& spec, Network<float>& net,
                                     std::uint64_t seed)
    : size_(checked_size(spec.get<AdaGpSettings>().predictor_size)),
      channels_(std::max(1, spec.get<AdaGpSettings>().predictor_channels)),
      p_max_(largest_target(net)),
      calibrate_(spec.get<AdaGpSettings>().predictor_calibrate),
      targets_(net.size()),
      conv_(Shape{1, size_, size_}, channels_, 3, 1, 1, true),
      relu_(Shape{channels_, size_, size_}, 0.0F),
      flatten_(Shape{channels_, size_, size_}),
      head_(Shape{channels_ * size_ * size_, 1, 1}, std::max(1, p_max_), true),
      adam_(predictor_adam(spec)) {
  for (std::size_t i = 0; i < net.size(); ++i) {
    if (!net.has_params(i)) continue;
    Layer<float>& l = net.layer(i);
    const LayerFamily family = layer_family(l.type());
    // The paper's predictor serves conv and dense layers; see serves().
    if (family != LayerFamily::kConv && family != LayerFamily::kDense) continue;
    Target& t = targets_[i];
    t.layer = &l;
    t.conv = family == LayerFamily::kConv;
    const auto params = l.params();
    const Tensor<float>& w = params[0]->value;
    // Conv2d stores its weight as (filters, in_ch*k*k), Dense as (in, units).
    t.samples = t.conv ? w.n() : static_cast<int>(w.sample_size());
    t.fan_in = t.conv ? static_cast<int>(w.sample_size()) : w.n();
    t.bias = params.size() > 1;
  }
  Rng rng(seed);
  const InitSpec init;  // pytorch_default, as the paper's PyTorch predictor starts
  conv_.init(init, rng);
  head_.init(init, rng);
}

const GradientPredictor::Target& GradientPredictor::target(std::size_t layer) const {
  if (layer >= targets_.size() || targets_[layer].layer == nullptr)
    throw std::logic_error("gradient predictor: layer " + std::to_string(layer) +
                           " has no parameters");
  return targets_[layer];
}

int GradientPredictor::samples(std::size_t layer) const {
  return layer < targets_.size() ? targets_[layer].samples : 0;
}

int GradientPredictor::outputs(std::size_t layer) const {
  const Target& t = target(layer);
  return t.fan_in + (t.bias ? 1 : 0);
}

std::vector<Param<float>*> GradientPredictor::params() {
  std::vector<Param<float>*> all = conv_.params();
  for (Param<float>* p : head_.params()) all.push_back(p);
  return all;
}

std::int64_t GradientPredictor::param_count() const {
  auto& self = const_cast<GradientPredictor&>(*this);  // params() hands out mutable pointers
  std::int64_t n = 0;
  for (Param<float>* p : self.params()) n += static_cast<std::int64_t>(p->value.size());
  return n;
}

void GradientPredictor::reorganize(std::size_t layer, const Tensor<float>& y,
                                   Tensor<float>& x) const {
  const Target& t = target(layer);
  const int b = y.n();
  x.resize(t.samples, Shape{1, size_, size_});
  if (t.conv) {
    const int h = y.shape().h, w = y.shape().w;
    const std::size_t plane = static_cast<std::size_t>(h) * w;
    std::vector<float> mean(plane);
    for (int f = 0; f < t.samples; ++f) {
      std::fill(mean.begin(), mean.end(), 0.0F);
      for (int n = 0; n < b; ++n) {
        const float* src = y.sample(n) + f * plane;
        for (std::size_t k = 0; k < plane; ++k) mean[k] += src[k];
      }
      for (float& v : mean) v /= static_cast<float>(b);
      resize_map(mean.data(), h, w, size_, x.sample(f));
    }
  } else {
    std::vector<float> acts(static_cast<std::size_t>(b));
    for (int j = 0; j < t.samples; ++j) {
      for (int n = 0; n < b; ++n) acts[static_cast<std::size_t>(n)] = y.sample(n)[j];
      std::sort(acts.begin(), acts.end());  // the batch order is random: keep the distribution
      resize_map(acts.data(), 1, b, size_, x.sample(j));
    }
  }
}

void GradientPredictor::gather_targets(std::size_t layer, std::vector<float>& out) const {
  const Target& t = target(layer);
  const auto params = t.layer->params();
  const float* w = params[0]->grad.data();
  const int p = t.fan_in + (t.bias ? 1 : 0);
  out.assign(static_cast<std::size_t>(t.samples) * p, 0.0F);
  for (int s = 0; s < t.samples; ++s) {
    float* row = out.data() + static_cast<std::size_t>(s) * p;
    for (int i = 0; i < t.fan_in; ++i)
      row[i] = t.conv ? w[static_cast<std::size_t>(s) * t.fan_in + i]
                      : w[static_cast<std::size_t>(i) * t.samples + s];
    if (t.bias) row[t.fan_in] = params[1]->grad.data()[s];
  }
}

void GradientPredictor::update_ms(double& ms, double batch_ms) {
  ms = ms == 0 ? batch_ms : (1 - kRmsRate) * ms + kRmsRate * batch_ms;
}

float GradientPredictor::w_scale(const Target& t) const {
  return static_cast<float>(std::sqrt(t.w_ms));
}
float GradientPredictor::b_scale(const Target& t) const {
  return static_cast<float>(std::sqrt(t.b_ms));
}

void GradientPredictor::run(std::size_t layer, const Tensor<float>& y) {
  Target& t = targets_[layer];
  reorganize(layer, y, x_);
  double ms = 0;
  for (std::size_t k = 0; k < x_.size(); ++k) ms += static_cast<double>(x_[k]) * x_[k];
  ms /= static_cast<double>(std::max<std::size_t>(1, x_.size()));
  update_ms(t.x_ms, ms);
  if (t.x_ms > 0) {
    const float inv = static_cast<float>(1 / std::sqrt(t.x_ms));
    for (std::size_t k = 0; k < x_.size(); ++k) x_[k] *= inv;
  }
  conv_.forward(x_, a1_);
  relu_.forward(a1_, a2_);
  flatten_.forward(a2_, a3_);
  head_.forward(a3_, out_);
}

double GradientPredictor::gain(std::size_t layer) const {
  const Target& t = target(layer);
  if (!calibrate_) return 1.0;
  return t.pp > 0 ? std::clamp(t.pt / t.pp, 0.0, 1.0) : 0.0;
}

void GradientPredictor::predict(std::size_t layer, const Tensor<float>& y) {
  target(layer);
  run(layer, y);
  const Target& t = targets_[layer];
  // Before any training the scales are 0: the prediction is a zero gradient, not noise.
  const float g = static_cast<float>(gain(layer));
  const float ws = w_scale(t) * g, bs = b_scale(t) * g;
  const auto params = t.layer->params();
  float* w = params[0]->grad.data();
  for (int s = 0; s < t.samples; ++s) {
    const float* row = out_.sample(s);
    for (int i = 0; i < t.fan_in; ++i) {
      const std::size_t at = t.conv ? static_cast<std::size_t>(s) * t.fan_in + i
                                    : static_cast<std::size_t>(i) * t.samples + s;
      w[at] = row[i] * ws;
    }
    if (t.bias) params[1]->grad.data()[s] = row[t.fan_in] * bs;
  }
}

PredictorError GradientPredictor::train(std::size_t layer, const Tensor<float>& y) {
  Target& t = targets_[static_cast<std::size_t>(layer)];
  target(layer);
  gather_targets(layer, t_);
  const int p = t.fan_in + (t.bias ? 1 : 0);
  double wsum = 0, bsum = 0;
  for (int s = 0; s < t.samples; ++s) {
    const float* row = t_.data() + static_cast<std::size_t>(s) * p;
    for (int i = 0; i < t.fan_in; ++i) wsum += static_cast<double>(row[i]) * row[i];
    if (t.bias) bsum += static_cast<double>(row[t.fan_in]) * row[t.fan_in];
  }
  update_ms(t.w_ms, wsum / (static_cast<double>(t.samples) * t.fan_in));
  if (t.bias) update_ms(t.b_ms, bsum / t.samples);
  // A layer whose gradients are all zero has nothing to learn from; avoid dividing by 0.
  const float ws = w_scale(t) > 0 ? w_scale(t) : 1.0F;
  const float bs = b_scale(t) > 0 ? b_scale(t) : 1.0F;

  run(layer, y);
  d_out_.resize(t.samples, Shape{p_max_, 1, 1});
  d_out_.set_zero();  // the masked outputs (>= P_l) get no gradient
  double se = 0, ape = 0, pt = 0, pp = 0;
  double raw_pt = 0, raw_pp = 0, raw_tt = 0;  // at the gradients' real scale, for the cosine
  for (int s = 0; s < t.samples; ++s) {
    const float* pred = out_.sample(s);
    const float* row = t_.data() + static_cast<std::size_t>(s) * p;
    float* d = d_out_.sample(s);
    for (int i = 0; i < p; ++i) {
      const float tn = row[i] / (i < t.fan_in ? ws : bs);
      const float diff = pred[i] - tn;
      se += static_cast<double>(diff) * diff;
      pt += static_cast<double>(pred[i]) * tn;
      pp += static_cast<double>(pred[i]) * pred[i];
      ape += std::fabs(diff) / (std::fabs(tn) + kMapeEps);
      const double s2 = i < t.fan_in ? static_cast<double>(ws) * ws : static_cast<double>(bs) * bs;
      raw_pt += s2 * pred[i] * tn;
      raw_pp += s2 * pred[i] * pred[i];
      raw_tt += s2 * tn * tn;
      // d(mean over the sample's P_l outputs of diff^2); Adam's mean reduction then
      // averages over the samples.
      d[i] = 2.0F * diff / static_cast<float>(p);
    }
  }
  const double n = static_cast<double>(t.samples) * p;
  update_ms(t.pt, pt / n);
  update_ms(t.pp, pp / n);
  PredictorError err{se / n, ape / n,
                     raw_pp > 0 && raw_tt > 0 ? raw_pt / std::sqrt(raw_pp * raw_tt) : 0.0};

  for (Param<float>* q : params()) q->grad.set_zero();
  head_.backward_weight(a3_, d_out_);
  head_.backward_data(a3_, out_, d_out_, d3_);
  flatten_.backward_data(a2_, a3_, d3_, d2_);
  relu_.backward_data(a1_, a2_, d2_, d1_);
  conv_.backward_weight(x_, d1_);  // the input is data: no backward-data below the conv
  adam_.step(params(), t.samples);
  return err;
}

void GradientPredictor::checkpoint(StateArchive& a) {
  a.section("predictor");
  for (Target& t : targets_) {
    a.value(t.w_ms);
    a.value(t.b_ms);
    a.value(t.x_ms);
    a.value(t.pt);
    a.value(t.pp);
  }
  for (Param<float>* p : params()) archive(a, *p);
  adam_.checkpoint(a);
}

}  // namespace trainsim
