#pragma once
// 2-D convolution (cross-correlation, as every framework defines it) with square kernels,
// stride and zero padding. Numerics use im2col + GEMM per sample:
//   cols[C*R*S x Ho*Wo] = im2col(x_n),  Y_n[F x Ho*Wo] = W[F x C*R*S] cols + b
// backward-data: dcols = W^T dY_n, scattered back with col2im;
// backward-weight: dW += dY_n cols^T, db += row sums of dY_n.
#include "sim/nn/layer.h"

namespace trainsim {

template <typename T>
class Conv2d final : public Layer<T> {
 public:
  Conv2d(const Shape& in, int filters, int kernel, int stride, int padding, bool bias);
  std::string type() const override { return "conv2d"; }
  void forward(const Tensor<T>& x, Tensor<T>& y) override;
  void backward_data(const Tensor<T>& x, const Tensor<T>& y, const Tensor<T>& dy,
                     Tensor<T>& dx) override;
  void backward_weight(const Tensor<T>& x, const Tensor<T>& dy) override;
  std::vector<Param<T>*> params() override;
  std::int64_t forward_macs() const override;
  void init(const InitSpec& spec, Rng& rng) override;

 private:
  void im2col(const T* x);   // fills cols_ from one input sample
  void col2im(T* dx) const;  // adds dcols_ into one input-gradient sample
  int filters_, kernel_, stride_, padding_;
  bool has_bias_;
  Param<T> weight_, bias_;
  RowMatrix<T> cols_, dcols_;  // scratch, reused across samples and batches
};

}  // namespace trainsim
