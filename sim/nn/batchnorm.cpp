#include "sim/nn/batchnorm.h"

#include <cmath>

#include "sim/core/error.h"
#include "sim/core/parallel.h"
#include "sim/nn/tensor_state.h"

namespace trainsim {

namespace {

// Every per-channel sum is taken in double, one channel per task, in a fixed order (eight
// running sums, element i into sum i mod 8, then added in order): the result does not depend
// on the thread count, fp32 agrees with PyTorch's (which also accumulates in a wider type) to
// rounding, and the eight independent sums let the loop run at the width of the vector unit.
constexpr int kLanes = 8;

template <typename T, typename F>
double lane_sum(std::int64_t n, const F& term) {
  double acc[kLanes] = {};
  std::int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (int k = 0; k < kLanes; ++k) acc[k] += term(i + k);
  for (; i < n; ++i) acc[i % kLanes] += term(i);
  double s = 0;
  for (double a : acc) s += a;
  return s;
}

// sum(g) and sum(g (p - mean)) in one pass, each summed as lane_sum sums.
template <typename T>
void lane_sums(std::int64_t n, const T* g, const T* p, double mean, double& sum_g, double& sum_gd) {
  double a[kLanes] = {}, b[kLanes] = {};
  std::int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (int k = 0; k < kLanes; ++k) {
      const double gk = g[i + k];
      a[k] += gk;
      b[k] += gk * (p[i + k] - mean);
    }
  for (; i < n; ++i) {
    const double gi = g[i];
    a[i % kLanes] += gi;
    b[i % kLanes] += gi * (p[i] - mean);
  }
  for (int k = 0; k < kLanes; ++k) sum_g += a[k], sum_gd += b[k];
}

}  // namespace

template <typename T>
BatchNorm<T>::BatchNorm(const Shape& in) {
  if (in.c <= 0) throw UserError("batch normalization of " + in.str() + ": no channels");
  this->in_ = this->out_ = in;
  const Shape per_channel{in.c, 1, 1};
  gamma_ = Param<T>{"weight", Tensor<T>(1, per_channel), Tensor<T>(1, per_channel)};
  beta_ = Param<T>{"bias", Tensor<T>(1, per_channel), Tensor<T>(1, per_channel)};
  running_mean_.resize(1, per_channel);
  running_var_.resize(1, per_channel);
  Rng unused(0);
  init(InitSpec{}, unused);
}

template <typename T>
void BatchNorm<T>::init(const InitSpec&, Rng&) {
  std::fill(gamma_.value.vec().begin(), gamma_.value.vec().end(), T(1));
  beta_.value.set_zero();
  running_mean_.set_zero();
  std::fill(running_var_.vec().begin(), running_var_.vec().end(), T(1));
}

template <typename T>
void BatchNorm<T>::archive_state(StateArchive& a) {
  archive(a, running_mean_);
  archive(a, running_var_);
  const auto c = static_cast<std::size_t>(this->in_.c);
  if (running_mean_.size() != c || running_var_.size() != c)
    throw UserError("checkpoint out of step: batch normalization statistics of another size");
}

template <typename T>
typename BatchNorm<T>::Stats BatchNorm<T>::batch_stats(const Tensor<T>& x, bool update) {
  const int n = x.n(), c = this->in_.c;
  const std::int64_t plane = static_cast<std::int64_t>(this->in_.h) * this->in_.w;
  const std::int64_t m = n * plane;
  if (m <= 1)
    throw UserError(
        "batch normalization in training needs more than one value per channel "
        "(a batch of " +
        std::to_string(n) + " at " + this->in_.str() + ")");
  Stats st{std::vector<double>(static_cast<std::size_t>(c)),
           std::vector<double>(static_cast<std::size_t>(c))};
  parallel_for(c, [&](int ch, int) {
    double sum = 0;
    for (int b = 0; b < n; ++b) {
      const T* p = x.sample(b) + ch * plane;
      sum += lane_sum<T>(plane, [p](std::int64_t i) { return static_cast<double>(p[i]); });
    }
    const double mean = sum / static_cast<double>(m);
    double sq = 0;
    for (int b = 0; b < n; ++b) {
      const T* p = x.sample(b) + ch * plane;
      sq += lane_sum<T>(plane, [p, mean](std::int64_t i) {
        const double d = p[i] - mean;
        return d * d;
      });
    }
    const double var = sq / static_cast<double>(m);
    st.mean[static_cast<std::size_t>(ch)] = mean;
    st.invstd[static_cast<std::size_t>(ch)] = 1.0 / std::sqrt(var + kEps);
    if (update) {
      T& rm = running_mean_[static_cast<std::size_t>(ch)];
      T& rv = running_var_[static_cast<std::size_t>(ch)];
      rm = static_cast<T>((1 - kMomentum) * rm + kMomentum * mean);
      rv = static_cast<T>((1 - kMomentum) * rv +
                          kMomentum * var * static_cast<double>(m) / static_cast<double>(m - 1));
    }
  });
  return st;
}

template <typename T>
typename BatchNorm<T>::Stats BatchNorm<T>::stats(const Tensor<T>& x, bool update) {
  if (training_) return batch_stats(x, update);
  Stats st;
  for (std::size_t ch = 0; ch < running_mean_.size(); ++ch) {
    st.mean.push_back(running_mean_[ch]);
    st.invstd.push_back(1.0 / std::sqrt(static_cast<double>(running_var_[ch]) + kEps));
  }
  return st;
}

template <typename T>
typename BatchNorm<T>::Stats BatchNorm<T>::saved_stats(const Tensor<T>& x, const Tensor<T>& saved) {
  if (!training_ || saved.size() == 0) return stats(x, false);
  const auto c = static_cast<std::size_t>(this->in_.c);
  Stats st;
  for (std::size_t ch = 0; ch < c; ++ch) {
    st.mean.push_back(saved[ch]);
    st.invstd.push_back(saved[c + ch]);
  }
  return st;
}

template <typename T>
void BatchNorm<T>::normalize(const Tensor<T>& x, const Stats& st, Tensor<T>& y) const {
  const int n = x.n(), c = this->in_.c;
  const std::int64_t plane = static_cast<std::int64_t>(this->in_.h) * this->in_.w;
  y.resize(n, this->out_);
  parallel_for(c, [&](int ch, int) {
    const auto k = static_cast<std::size_t>(ch);
    // y = (x - mean) gamma invstd + beta: the deviation first, as PyTorch computes it (a
    // scale and one shift would cancel digits when the mean is large against the spread).
    const T mean = static_cast<T>(st.mean[k]);
    const T scale = static_cast<T>(gamma_.value[k] * st.invstd[k]);
    const T shift = beta_.value[k];
    for (int b = 0; b < n; ++b) {
      const T* p = x.sample(b) + ch * plane;
      T* q = y.sample(b) + ch * plane;
      for (std::int64_t i = 0; i < plane; ++i) q[i] = (p[i] - mean) * scale + shift;
    }
  });
}

template <typename T>
void BatchNorm<T>::forward(const Tensor<T>& x, Tensor<T>& y) {
  memo_.pending = false;  // the tensors a pending pair of sums came from may be rewritten now
  normalize(x, stats(x, true), y);
}

template <typename T>
void BatchNorm<T>::forward_graph(const LayerInputs<T>& xs, Tensor<T>& y, Tensor<T>& saved) {
  memo_.pending = false;  // as in forward
  const Tensor<T>& x = *xs[0];
  const Stats st = stats(x, true);
  normalize(x, st, y);
  if (!training_) {
    saved.resize(0, this->in_);
    return;
  }
  // mean (C values), then 1 / sqrt(var + eps) (C values), in T as PyTorch saves them.
  const int c = this->in_.c;
  saved.resize(1, Shape{2 * c, 1, 1});
  for (std::size_t ch = 0; ch < static_cast<std::size_t>(c); ++ch) {
    saved[ch] = static_cast<T>(st.mean[ch]);
    saved[static_cast<std::size_t>(c) + ch] = static_cast<T>(st.invstd[ch]);
  }
}

template <typename T>
void BatchNorm<T>::compute_grad_sums(const Tensor<T>& x, const Tensor<T>& dy, const Stats& st,
                                     GradSums& out) const {
  const int n = x.n(), c = this->in_.c;
  const std::int64_t plane = static_cast<std::int64_t>(this->in_.h) * this->in_.w;
  out.dy.assign(static_cast<std::size_t>(c), 0.0);
  out.dy_xhat.assign(static_cast<std::size_t>(c), 0.0);
  parallel_for(c, [&](int ch, int) {
    const auto k = static_cast<std::size_t>(ch);
    const double mean = st.mean[k];
    double s = 0, sx = 0;
    for (int b = 0; b < n; ++b) {
      const T* p = x.sample(b) + ch * plane;
      const T* g = dy.sample(b) + ch * plane;
      lane_sums(plane, g, p, mean, s, sx);
    }
    out.dy[k] = s;
    out.dy_xhat[k] = sx * st.invstd[k];
  });
}

template <typename T>
const typename BatchNorm<T>::GradSums& BatchNorm<T>::grad_sums(const Tensor<T>& x,
                                                               const Tensor<T>& dy, const Stats& st,
                                                               const void* stats_key,
                                                               bool by_weight) {
  SumsMemo& m = memo_;
  const bool same = m.pending && m.by_weight != by_weight && m.x == x.data() && m.dy == dy.data() &&
                    m.stats_key == stats_key && m.size == dy.size();
  if (same) {
    m.pending = false;
    return m.sums;
  }
  compute_grad_sums(x, dy, st, m.sums);
  m = SumsMemo{true, by_weight, x.data(), dy.data(), stats_key, dy.size(), std::move(m.sums)};
  return m.sums;
}

template <typename T>
void BatchNorm<T>::input_grad(const Tensor<T>& x, const Tensor<T>& dy, const Stats& st,
                              const void* stats_key, Tensor<T>& dx) {
  const int n = x.n(), c = this->in_.c;
  const std::int64_t plane = static_cast<std::int64_t>(this->in_.h) * this->in_.w;
  const GradSums* sums = training_ ? &grad_sums(x, dy, st, stats_key, false) : nullptr;
  dx.resize(n, this->in_);
  const double m = static_cast<double>(n * plane);
  // Training: dx = gamma invstd (dy - mean(dy) - xhat mean(dy xhat)), xhat = (x - mean)
  // invstd, since the batch's mean and variance depend on x. Evaluation: dx = gamma invstd dy.
  parallel_for(c, [&](int ch, int) {
    const auto k = static_cast<std::size_t>(ch);
    const double g = gamma_.value[k] * st.invstd[k];
    const double mean_dy = sums ? sums->dy[k] / m : 0.0;
    const double coeff = sums ? sums->dy_xhat[k] / m * st.invstd[k] : 0.0;
    // dx = a dy + b (x - mean) + d, per channel (the deviation first, as in forward).
    const T mean = static_cast<T>(st.mean[k]);
    const T a = static_cast<T>(g), b = static_cast<T>(-g * coeff);
    const T d = static_cast<T>(-g * mean_dy);
    for (int s = 0; s < n; ++s) {
      const T* p = x.sample(s) + ch * plane;
      const T* gy = dy.sample(s) + ch * plane;
      T* out = dx.sample(s) + ch * plane;
      for (std::int64_t i = 0; i < plane; ++i) out[i] = a * gy[i] + b * (p[i] - mean) + d;
    }
  });
}

template <typename T>
void BatchNorm<T>::weight_grad(const Tensor<T>& x, const Tensor<T>& dy, const Stats& st,
                               const void* stats_key) {
  const GradSums& sums = grad_sums(x, dy, st, stats_key, true);
  for (std::size_t k = 0; k < sums.dy.size(); ++k) {
    gamma_.grad[k] += static_cast<T>(sums.dy_xhat[k]);
    beta_.grad[k] += static_cast<T>(sums.dy[k]);
  }
}

template <typename T>
void BatchNorm<T>::backward_data(const Tensor<T>& x, const Tensor<T>& y, const Tensor<T>& dy,
                                 Tensor<T>& dx) {
  // No saved statistics: they are computed from x, which the memo's x pointer stands for.
  input_grad(x, dy, stats(x, false), nullptr, dx);
}

template <typename T>
void BatchNorm<T>::backward_data_graph(const LayerInputs<T>& xs, const Tensor<T>& y,
                                       const Tensor<T>& saved, const Tensor<T>& dy, std::size_t k,
                                       Tensor<T>& dx) {
  input_grad(*xs[0], dy, saved_stats(*xs[0], saved), saved.data(), dx);
}

template <typename T>
void BatchNorm<T>::backward_weight(const Tensor<T>& x, const Tensor<T>& dy) {
  weight_grad(x, dy, stats(x, false), nullptr);
}

template <typename T>
void BatchNorm<T>::backward_weight_graph(const Tensor<T>& x, const Tensor<T>& saved,
                                         const Tensor<T>& dy) {
  weight_grad(x, dy, saved_stats(x, saved), saved.data());
}

template class BatchNorm<float>;
template class BatchNorm<double>;

}  // namespace trainsim
