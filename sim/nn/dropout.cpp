#include "sim/nn/dropout.h"

#include <algorithm>

#include "sim/core/error.h"

namespace trainsim {

template <typename T>
Dropout<T>::Dropout(const Shape& in, double rate) : rate_(rate) {
  if (!(rate >= 0 && rate < 1))
    throw UserError("rate " + std::to_string(rate) + " is not in [0, 1)");
  this->in_ = this->out_ = in;
}

template <typename T>
void Dropout<T>::forward(const Tensor<T>& x, Tensor<T>& y) {
  y = x;
}

template <typename T>
void Dropout<T>::backward_data(const Tensor<T>& x, const Tensor<T>& y, const Tensor<T>& dy,
                               Tensor<T>& dx) {
  dx = dy;
}

template <typename T>
void Dropout<T>::forward_graph(const LayerInputs<T>& xs, Tensor<T>& y, Tensor<T>& saved) {
  const Tensor<T>& x = *xs[0];
  if (!training_ || rate_ == 0) {
    saved.resize(0, this->in_);  // no mask: the gradient passes unchanged
    return forward(x, y);
  }
  y.resize(x.n(), this->out_);
  saved.resize(x.n(), this->in_);
  // One draw per value, in order, on one thread: the mask does not depend on the threads.
  const T keep = static_cast<T>(1 / (1 - rate_));
  for (std::size_t i = 0; i < x.size(); ++i) {
    saved[i] = rng_.uniform() < rate_ ? T(0) : keep;
    y[i] = x[i] * saved[i];
  }
}

template <typename T>
void Dropout<T>::backward_data_graph(const LayerInputs<T>& xs, const Tensor<T>& y,
                                     const Tensor<T>& saved, const Tensor<T>& dy, std::size_t k,
                                     Tensor<T>& dx) {
  if (saved.size() == 0) return backward_data(*xs[0], y, dy, dx);
  dx.resize(dy.n(), this->in_);
  for (std::size_t i = 0; i < dy.size(); ++i) dx[i] = dy[i] * saved[i];
}

template <typename T>
void Dropout<T>::archive_state(StateArchive& a) {
  std::string state = rng_.state();
  a.string(state);
  if (a.loading()) rng_.set_state(state);
}

template class Dropout<float>;
template class Dropout<double>;

}  // namespace trainsim
