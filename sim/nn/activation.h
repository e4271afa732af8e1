#pragma once
// Element-wise layers: ReLU, LeakyReLU(slope), tanh, sigmoid, GELU, and the reshapes
// (Reshape, Flatten).
#include <cstdint>
#include <string>

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

/// A reshape: the input's values, in order, as another C x H x W. It copies, so every layer
/// owns a distinct output buffer.
template <typename T>
class Reshape : public Layer<T> {
 public:
  Reshape(const Shape& in, const Shape& out) {
    this->in_ = in;
    this->out_ = out;
  }
  std::string type() const override { return "reshape"; }
  void forward(const Tensor<T>& x, Tensor<T>& y) override;
  void backward_data(const Tensor<T>& x, const Tensor<T>& y, const Tensor<T>& dy,
                     Tensor<T>& dx) override;
};

/// Why the input `in` cannot be read as shape `to` ("" if it can: both hold as many values).
/// The numerics' reshape and NetShape's (sim/workload/layers/reshape.cpp) check the same.
std::string reshape_error(const Shape& in, const Shape& to);

template <typename T>
class Flatten final : public Reshape<T> {
 public:
  explicit Flatten(const Shape& in) : Reshape<T>(in, Shape{static_cast<int>(in.size()), 1, 1}) {}
  std::string type() const override { return "flatten"; }
};

/// The smooth element-wise activations: tanh, the logistic sigmoid and GELU (its tanh form,
/// as BERT computes it).
enum class Smooth : std::uint8_t { kTanh, kSigmoid, kGelu };

template <typename T>
class SmoothActivation final : public Layer<T> {
 public:
  SmoothActivation(const Shape& in, Smooth fn) : fn_(fn) { this->in_ = this->out_ = in; }
  std::string type() const override;
  void forward(const Tensor<T>& x, Tensor<T>& y) override;
  void backward_data(const Tensor<T>& x, const Tensor<T>& y, const Tensor<T>& dy,
                     Tensor<T>& dx) override;

 private:
  Smooth fn_;
};

}  // namespace trainsim
