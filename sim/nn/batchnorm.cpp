#include "sim/nn/batchnorm.h"

#include <cmath>

#include "sim/core/error.h"
#include "sim/core/parallel.h"
#include "sim/nn/tensor_state.h"

namespace trainsim {

// Every per-channel sum is taken in double, one channel per task in a fixed order: the result
// does not depend on the thread count, and fp32 agrees with PyTorch's (which also
// accumulates in a wider type) to rounding.

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
  const int c = this->in_.c;
  if (running_mean_.size() != static_cast<std::size_t>(c) ||
      running_var_.size() != static_cast<std::size_t>(c))
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
      for (std::int64_t i = 0; i < plane; ++i) sum += p[i];
    }
    const double mean = sum / static_cast<double>(m);
    double sq = 0;
    for (int b = 0; b < n; ++b) {
      const T* p = x.sample(b) + ch * plane;
      for (std::int64_t i = 0; i < plane; ++i) {
        const double d = p[i] - mean;
        sq += d * d;
      }
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
void BatchNorm<T>::forward(const Tensor<T>& x, Tensor<T>& y) {
  const int n = x.n(), c = this->in_.c;
  const std::int64_t plane = static_cast<std::int64_t>(this->in_.h) * this->in_.w;
  y.resize(n, this->out_);
  const Stats st = stats(x, true);
  parallel_for(c, [&](int ch, int) {
    const auto k = static_cast<std::size_t>(ch);
    // y = scale x + shift, with the scale and shift of this channel.
    const double scale = gamma_.value[k] * st.invstd[k];
    const T s = static_cast<T>(scale);
    const T shift = static_cast<T>(beta_.value[k] - st.mean[k] * scale);
    for (int b = 0; b < n; ++b) {
      const T* p = x.sample(b) + ch * plane;
      T* q = y.sample(b) + ch * plane;
      for (std::int64_t i = 0; i < plane; ++i) q[i] = p[i] * s + shift;
    }
  });
}

template <typename T>
void BatchNorm<T>::grad_sums(const Tensor<T>& x, const Tensor<T>& dy, const Stats& st,
                             std::vector<double>& sum_dy, std::vector<double>& sum_dy_xhat) const {
  const int n = x.n(), c = this->in_.c;
  const std::int64_t plane = static_cast<std::int64_t>(this->in_.h) * this->in_.w;
  sum_dy.assign(static_cast<std::size_t>(c), 0.0);
  sum_dy_xhat.assign(static_cast<std::size_t>(c), 0.0);
  parallel_for(c, [&](int ch, int) {
    const auto k = static_cast<std::size_t>(ch);
    double s = 0, sx = 0;
    for (int b = 0; b < n; ++b) {
      const T* p = x.sample(b) + ch * plane;
      const T* g = dy.sample(b) + ch * plane;
      for (std::int64_t i = 0; i < plane; ++i) {
        s += g[i];
        sx += g[i] * (p[i] - st.mean[k]);
      }
    }
    sum_dy[k] = s;
    sum_dy_xhat[k] = sx * st.invstd[k];
  });
}

template <typename T>
void BatchNorm<T>::backward_data(const Tensor<T>& x, const Tensor<T>& y, const Tensor<T>& dy,
                                 Tensor<T>& dx) {
  const int n = x.n(), c = this->in_.c;
  const std::int64_t plane = static_cast<std::int64_t>(this->in_.h) * this->in_.w;
  const Stats st = stats(x, false);
  std::vector<double> sum_dy, sum_dy_xhat;
  if (training_) grad_sums(x, dy, st, sum_dy, sum_dy_xhat);
  dx.resize(n, this->in_);
  const double m = static_cast<double>(n * plane);
  // Training: dx = gamma invstd (dy - mean(dy) - xhat mean(dy xhat)), xhat = (x - mean)
  // invstd, since the batch's mean and variance depend on x. Evaluation: dx = gamma invstd dy.
  parallel_for(c, [&](int ch, int) {
    const auto k = static_cast<std::size_t>(ch);
    const double g = gamma_.value[k] * st.invstd[k];
    const double mean_dy = training_ ? sum_dy[k] / m : 0.0;
    const double coeff = training_ ? sum_dy_xhat[k] / m * st.invstd[k] : 0.0;
    for (int b = 0; b < n; ++b) {
      const T* p = x.sample(b) + ch * plane;
      const T* gy = dy.sample(b) + ch * plane;
      T* out = dx.sample(b) + ch * plane;
      for (std::int64_t i = 0; i < plane; ++i)
        out[i] = static_cast<T>(g * (gy[i] - mean_dy - (p[i] - st.mean[k]) * coeff));
    }
  });
}

template <typename T>
void BatchNorm<T>::backward_weight(const Tensor<T>& x, const Tensor<T>& dy) {
  const Stats st = stats(x, false);
  std::vector<double> sum_dy, sum_dy_xhat;
  grad_sums(x, dy, st, sum_dy, sum_dy_xhat);
  for (std::size_t k = 0; k < sum_dy.size(); ++k) {
    gamma_.grad[k] += static_cast<T>(sum_dy_xhat[k]);
    beta_.grad[k] += static_cast<T>(sum_dy[k]);
  }
}

template class BatchNorm<float>;
template class BatchNorm<double>;

}  // namespace trainsim
