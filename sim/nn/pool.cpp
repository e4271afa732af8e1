#include "sim/nn/pool.h"

namespace trainsim {

template <typename T>
Pool2d<T>::Pool2d(const Shape& in, Mode mode, int kernel, int stride)
    : mode_(mode), kernel_(kernel), stride_(stride) {
  this->in_ = in;
  this->out_ = Shape{in.c, (in.h - kernel) / stride + 1, (in.w - kernel) / stride + 1};
}

template <typename T>
void Pool2d<T>::forward(const Tensor<T>& x, Tensor<T>& y) {
  y.resize(x.n(), this->out_);
  const Shape& in = this->in_;
  const Shape& out = this->out_;
  const T inv_area = T(1) / static_cast<T>(kernel_ * kernel_);
  for (int n = 0; n < x.n(); ++n) {
    for (int c = 0; c < in.c; ++c) {
      const T* xc = x.sample(n) + static_cast<std::size_t>(c) * in.h * in.w;
      T* yc = y.sample(n) + static_cast<std::size_t>(c) * out.h * out.w;
      for (int oh = 0; oh < out.h; ++oh) {
        for (int ow = 0; ow < out.w; ++ow) {
          const T* win = xc + static_cast<std::size_t>(oh * stride_) * in.w + ow * stride_;
          T acc = mode_ == Mode::kMax ? win[0] : T(0);
          for (int r = 0; r < kernel_; ++r) {
            for (int s = 0; s < kernel_; ++s) {
              const T v = win[r * in.w + s];
              if (mode_ == Mode::kMax) {
                if (v > acc) acc = v;
              } else {
                acc += v;
              }
            }
          }
          yc[oh * out.w + ow] = mode_ == Mode::kMax ? acc : acc * inv_area;
        }
      }
    }
  }
}

template <typename T>
void Pool2d<T>::backward_data(const Tensor<T>& x, const Tensor<T>& y, const Tensor<T>& dy,
                              Tensor<T>& dx) {
  dx.resize(dy.n(), this->in_);
  dx.set_zero();
  const Shape& in = this->in_;
  const Shape& out = this->out_;
  const T inv_area = T(1) / static_cast<T>(kernel_ * kernel_);
  for (int n = 0; n < dy.n(); ++n) {
    for (int c = 0; c < in.c; ++c) {
      const std::size_t in_off = static_cast<std::size_t>(c) * in.h * in.w;
      const T* xc = x.sample(n) + in_off;
      T* dxc = dx.sample(n) + in_off;
      const T* dyc = dy.sample(n) + static_cast<std::size_t>(c) * out.h * out.w;
      for (int oh = 0; oh < out.h; ++oh) {
        for (int ow = 0; ow < out.w; ++ow) {
          const std::size_t base = static_cast<std::size_t>(oh * stride_) * in.w + ow * stride_;
          const T g = dyc[oh * out.w + ow];
          if (mode_ == Mode::kAvg) {
            for (int r = 0; r < kernel_; ++r)
              for (int s = 0; s < kernel_; ++s) dxc[base + r * in.w + s] += g * inv_area;
            continue;
          }
          std::size_t best = base;
          for (int r = 0; r < kernel_; ++r)
            for (int s = 0; s < kernel_; ++s)
              if (xc[base + r * in.w + s] > xc[best]) best = base + r * in.w + s;
          dxc[best] += g;
        }
      }
    }
  }
}

template class Pool2d<float>;
template class Pool2d<double>;

}  // namespace trainsim
