#pragma once
// Fully connected layer Y[B x Out] = X[B x In] W[In x Out] + b. W is stored In x Out so the
// forward pass is the GEMM (M = batch, N = out, K = in) that the accelerator model and
// SCALE-Sim use; backward-data is dX = dY W^T and backward-weight is dW = X^T dY.
#include "sim/nn/layer.h"

namespace trainsim {

template <typename T>
class Dense final : public Layer<T> {
 public:
  Dense(const Shape& in, int units, bool bias);
  std::string type() const override { return "dense"; }
  void forward(const Tensor<T>& x, Tensor<T>& y) override;
  void backward_data(const Tensor<T>& x, const Tensor<T>& y, const Tensor<T>& dy,
                     Tensor<T>& dx) override;
  void backward_weight(const Tensor<T>& x, const Tensor<T>& dy) override;
  std::vector<Param<T>*> params() override;
  std::int64_t forward_macs() const override { return in_features_ * units_; }
  void init(const InitSpec& spec, Rng& rng) override;

 private:
  std::int64_t in_features_;
  int units_;
  bool has_bias_;
  Param<T> weight_, bias_;
};

}  // namespace trainsim
