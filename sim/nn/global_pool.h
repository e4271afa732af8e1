#pragma once
// Global average pooling: the mean of each channel, C x H x W -> C x 1 x 1 (ResNet's,
// MobileNet's and DenseNet's last spatial layer).
#include "sim/nn/layer.h"

namespace trainsim {

template <typename T>
class GlobalAvgPool final : public Layer<T> {
 public:
  explicit GlobalAvgPool(const Shape& in) {
    this->in_ = in;
    this->out_ = Shape{in.c, 1, 1};
  }
  std::string type() const override { return "global_avgpool"; }
  void forward(const Tensor<T>& x, Tensor<T>& y) override;
  void backward_data(const Tensor<T>& x, const Tensor<T>& y, const Tensor<T>& dy,
                     Tensor<T>& dx) override;
};

}  // namespace trainsim
