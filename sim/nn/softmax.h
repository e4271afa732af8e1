#pragma once
// Softmax output layer and its pairing with cross-entropy. The layer's own backward_data
// applies the full softmax Jacobian (so it can be gradient-checked and chained like any
// layer); training uses the fused cross_entropy_grad(), dL/dlogits = p - onehot, which is the
// same value computed without the 1/p round trip.
#include <cstdint>

#include "sim/nn/layer.h"

namespace trainsim {

template <typename T>
class Softmax final : public Layer<T> {
 public:
  explicit Softmax(const Shape& in) { this->in_ = this->out_ = in; }
  std::string type() const override { return "softmax"; }
  void forward(const Tensor<T>& x, Tensor<T>& y) override;
  void backward_data(const Tensor<T>& x, const Tensor<T>& y, const Tensor<T>& dy,
                     Tensor<T>& dx) override;
};

/// Sum over the batch of -log p[label] (p clamped away from 0).
template <typename T>
double cross_entropy_loss(const Tensor<T>& probs, const std::uint8_t* labels);

/// dL/dlogits for the summed cross-entropy of softmax outputs `probs`: p - onehot(label).
template <typename T>
void cross_entropy_grad(const Tensor<T>& probs, const std::uint8_t* labels, Tensor<T>& dlogits);

/// Number of samples whose arg-max (first maximum) equals the label.
template <typename T>
std::int64_t count_correct(const Tensor<T>& probs, const std::uint8_t* labels);

}  // namespace trainsim
