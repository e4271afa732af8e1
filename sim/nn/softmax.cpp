#include "sim/nn/softmax.h"

#include <algorithm>
#include <cmath>

namespace trainsim {

template <typename T>
void Softmax<T>::forward(const Tensor<T>& x, Tensor<T>& y) {
  y.resize(x.n(), this->out_);
  const std::int64_t k = x.sample_size();
  for (int n = 0; n < x.n(); ++n) {
    const T* in = x.sample(n);
    T* out = y.sample(n);
    const T mx = *std::max_element(in, in + k);  // shift for overflow safety
    T sum = 0;
    for (std::int64_t i = 0; i < k; ++i) sum += (out[i] = std::exp(in[i] - mx));
    const T inv = T(1) / sum;
    for (std::int64_t i = 0; i < k; ++i) out[i] *= inv;
  }
}

template <typename T>
void Softmax<T>::backward_data(const Tensor<T>& x, const Tensor<T>& y, const Tensor<T>& dy,
                               Tensor<T>& dx) {
  dx.resize(dy.n(), this->in_);
  const std::int64_t k = dy.sample_size();
  for (int n = 0; n < dy.n(); ++n) {
    const T* p = y.sample(n);
    const T* g = dy.sample(n);
    T dot = 0;
    for (std::int64_t i = 0; i < k; ++i) dot += g[i] * p[i];
    T* out = dx.sample(n);
    for (std::int64_t i = 0; i < k; ++i) out[i] = p[i] * (g[i] - dot);
  }
}

template <typename T>
double cross_entropy_loss(const Tensor<T>& probs, const std::uint8_t* labels) {
  double loss = 0;
  for (int n = 0; n < probs.n(); ++n) {
    const double p = static_cast<double>(probs.sample(n)[labels[n]]);
    loss -= std::log(std::max(p, 1e-30));
  }
  return loss;
}

template <typename T>
void cross_entropy_grad(const Tensor<T>& probs, const std::uint8_t* labels, Tensor<T>& dlogits) {
  dlogits.resize(probs.n(), probs.shape());
  std::copy(probs.data(), probs.data() + probs.size(), dlogits.data());
  for (int n = 0; n < probs.n(); ++n) dlogits.sample(n)[labels[n]] -= T(1);
}

template <typename T>
std::int64_t count_correct(const Tensor<T>& probs, const std::uint8_t* labels) {
  std::int64_t correct = 0;
  const std::int64_t k = probs.sample_size();
  for (int n = 0; n < probs.n(); ++n) {
    const T* p = probs.sample(n);
    if (std::max_element(p, p + k) - p == labels[n]) ++correct;
  }
  return correct;
}

template class Softmax<float>;
template class Softmax<double>;
template double cross_entropy_loss<float>(const Tensor<float>&, const std::uint8_t*);
template double cross_entropy_loss<double>(const Tensor<double>&, const std::uint8_t*);
template void cross_entropy_grad<float>(const Tensor<float>&, const std::uint8_t*, Tensor<float>&);
template void cross_entropy_grad<double>(const Tensor<double>&, const std::uint8_t*,
                                         Tensor<double>&);
template std::int64_t count_correct<float>(const Tensor<float>&, const std::uint8_t*);
template std::int64_t count_correct<double>(const Tensor<double>&, const std::uint8_t*);

}  // namespace trainsim
