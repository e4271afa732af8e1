#include "sim/nn/dense.h"

#include "sim/nn/init.h"

namespace trainsim {

template <typename T>
Dense<T>::Dense(const Shape& in, int units, bool bias)
    : in_features_(in.size()), units_(units), has_bias_(bias) {
  this->in_ = in;
  this->out_ = Shape{units, 1, 1};
  weight_.name = "weight";
  weight_.value.resize(static_cast<int>(in_features_), Shape{units, 1, 1});
  weight_.grad.resize(static_cast<int>(in_features_), Shape{units, 1, 1});
  weight_.grad.set_zero();
  if (has_bias_) {
    bias_.name = "bias";
    bias_.value.resize(1, Shape{units, 1, 1});
    bias_.value.set_zero();
    bias_.grad.resize(1, Shape{units, 1, 1});
    bias_.grad.set_zero();
  }
}

template <typename T>
void Dense<T>::forward(const Tensor<T>& x, Tensor<T>& y) {
  y.resize(x.n(), this->out_);
  auto ym = y.mat();
  ym.noalias() = x.mat() * weight_.value.mat();
  if (has_bias_) ym.rowwise() += bias_.value.mat().row(0);
}

template <typename T>
void Dense<T>::backward_data(const Tensor<T>& x, const Tensor<T>& y, const Tensor<T>& dy,
                             Tensor<T>& dx) {
  dx.resize(dy.n(), this->in_);
  dx.mat().noalias() = dy.mat() * weight_.value.mat().transpose();
}

template <typename T>
void Dense<T>::backward_weight(const Tensor<T>& x, const Tensor<T>& dy) {
  weight_.grad.mat().noalias() += x.mat().transpose() * dy.mat();
  if (has_bias_) bias_.grad.mat().row(0) += dy.mat().colwise().sum();
}

template <typename T>
std::vector<Param<T>*> Dense<T>::params() {
  if (has_bias_) return {&weight_, &bias_};
  return {&weight_};
}

template <typename T>
void Dense<T>::init(const InitSpec& spec, Rng& rng) {
  init_params<T>(spec, rng, in_features_, units_, weight_.value,
                 has_bias_ ? &bias_.value : nullptr);
}

template class Dense<float>;
template class Dense<double>;

}  // namespace trainsim
