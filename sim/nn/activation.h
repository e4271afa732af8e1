#pragma once
// Element-wise layers: ReLU, LeakyReLU(slope) and Flatten (a reshape that copies, so every
// layer owns a distinct output buffer).
#include "sim/nn/layer.h"

namespace trainsim {

template <typename T>
class LeakyRelu final : public Layer<T> {
 public:
  /// slope 0 is plain ReLU (reported as type "relu").
  LeakyRelu(const Shape& in, T slope) : slope_(slope) { this->in_ = this->out_ = in; }
  std::string type() const override { return slope_ == T(0) ? "relu" : "leaky_relu"; }
  void forward(const Tensor<T>& x, Tensor<T>& y) override;
  void backward_data(const Tensor<T>& x, const Tensor<T>& y, const Tensor<T>& dy,
                     Tensor<T>& dx) override;

 private:
  T slope_;
};

template <typename T>
class Flatten final : public Layer<T> {
 public:
  explicit Flatten(const Shape& in) {
    this->in_ = in;
    this->out_ = Shape{static_cast<int>(in.size()), 1, 1};
  }
  std::string type() const override { return "flatten"; }
  void forward(const Tensor<T>& x, Tensor<T>& y) override;
  void backward_data(const Tensor<T>& x, const Tensor<T>& y, const Tensor<T>& dy,
                     Tensor<T>& dx) override;
};

}  // namespace trainsim
