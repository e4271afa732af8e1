#pragma once
// Max and average pooling over square windows, no padding. Max pooling routes the gradient
// to the first maximum of each window, found again from x in backward_data: the layer keeps
// no argmax between calls (see layer.h for why).
#include "sim/nn/layer.h"

namespace trainsim {

template <typename T>
class Pool2d final : public Layer<T> {
 public:
  enum class Mode { kMax, kAvg };
  Pool2d(const Shape& in, Mode mode, int kernel, int stride);
  std::string type() const override { return mode_ == Mode::kMax ? "maxpool2d" : "avgpool2d"; }
  void forward(const Tensor<T>& x, Tensor<T>& y) override;
  void backward_data(const Tensor<T>& x, const Tensor<T>& y, const Tensor<T>& dy,
                     Tensor<T>& dx) override;

 private:
  Mode mode_;
  int kernel_, stride_;
};

}  // namespace trainsim
