#include "sim/nn/conv2d.h"

#include <algorithm>

#include "sim/nn/init.h"

namespace trainsim {

template <typename T>
Conv2d<T>::Conv2d(const Shape& in, int filters, int kernel, int stride, int padding, bool bias)
    : filters_(filters), kernel_(kernel), stride_(stride), padding_(padding), has_bias_(bias) {
  this->in_ = in;
  this->out_ = Shape{filters, (in.h + 2 * padding - kernel) / stride + 1,
                     (in.w + 2 * padding - kernel) / stride + 1};
  const Shape wshape{in.c, kernel, kernel};
  weight_.name = "weight";
  weight_.value.resize(filters, wshape);
  weight_.grad.resize(filters, wshape);
  weight_.grad.set_zero();
  if (has_bias_) {
    bias_.name = "bias";
    bias_.value.resize(1, Shape{filters, 1, 1});
    bias_.value.set_zero();
    bias_.grad.resize(1, Shape{filters, 1, 1});
    bias_.grad.set_zero();
  }
  cols_.resize(wshape.size(), static_cast<Eigen::Index>(this->out_.h) * this->out_.w);
  dcols_.resizeLike(cols_);
}

namespace {
// Output columns ow whose input column ow * stride + s - pad lies inside [0, width): the
// copy loops run branch-free over [lo, hi) and zero-fill the padding on either side.
struct ColumnRange {
  int lo, hi;
};
ColumnRange valid_columns(int s, int stride, int pad, int width, int out_w) {
  const int first = pad - s;  // smallest ow * stride that lands on column 0
  int lo = first <= 0 ? 0 : (first + stride - 1) / stride;
  int hi = (width - 1 + pad - s) < 0 ? 0 : (width - 1 + pad - s) / stride + 1;
  lo = std::min(lo, out_w);
  hi = std::max(lo, std::min(hi, out_w));
  return {lo, hi};
}
}  // namespace

template <typename T>
void Conv2d<T>::im2col(const T* x) {
  const Shape& in = this->in_;
  const int ho = this->out_.h, wo = this->out_.w;
  T* dst = cols_.data();
  for (int c = 0; c < in.c; ++c) {
    const T* xc = x + static_cast<std::size_t>(c) * in.h * in.w;
    for (int r = 0; r < kernel_; ++r) {
      for (int s = 0; s < kernel_; ++s) {
        const ColumnRange cr = valid_columns(s, stride_, padding_, in.w, wo);
        for (int oh = 0; oh < ho; ++oh, dst += wo) {
          const int ih = oh * stride_ + r - padding_;
          if (ih < 0 || ih >= in.h) {
            std::fill(dst, dst + wo, T(0));
            continue;
          }
          const T* row = xc + static_cast<std::ptrdiff_t>(ih) * in.w + s - padding_;
          std::fill(dst, dst + cr.lo, T(0));
          if (stride_ == 1) {
            std::copy(row + cr.lo, row + cr.hi, dst + cr.lo);
          } else {
            for (int ow = cr.lo; ow < cr.hi; ++ow) dst[ow] = row[ow * stride_];
          }
          std::fill(dst + cr.hi, dst + wo, T(0));
        }
      }
    }
  }
}

template <typename T>
void Conv2d<T>::col2im(T* dx) const {
  const Shape& in = this->in_;
  const int ho = this->out_.h, wo = this->out_.w;
  const T* src = dcols_.data();
  for (int c = 0; c < in.c; ++c) {
    T* dxc = dx + static_cast<std::size_t>(c) * in.h * in.w;
    for (int r = 0; r < kernel_; ++r) {
      for (int s = 0; s < kernel_; ++s) {
        const ColumnRange cr = valid_columns(s, stride_, padding_, in.w, wo);
        for (int oh = 0; oh < ho; ++oh, src += wo) {
          const int ih = oh * stride_ + r - padding_;
          if (ih < 0 || ih >= in.h) continue;
          T* row = dxc + static_cast<std::ptrdiff_t>(ih) * in.w + s - padding_;
          for (int ow = cr.lo; ow < cr.hi; ++ow) row[ow * stride_] += src[ow];
        }
      }
    }
  }
}

template <typename T>
void Conv2d<T>::forward(const Tensor<T>& x, Tensor<T>& y) {
  y.resize(x.n(), this->out_);
  const Eigen::Index pixels = cols_.cols();
  for (int n = 0; n < x.n(); ++n) {
    im2col(x.sample(n));
    MatMap<T> yn(y.sample(n), filters_, pixels);
    yn.noalias() = weight_.value.mat() * cols_;
    if (has_bias_) yn.colwise() += bias_.value.mat().row(0).transpose();
  }
}

template <typename T>
void Conv2d<T>::backward_data(const Tensor<T>& x, const Tensor<T>& y, const Tensor<T>& dy,
                              Tensor<T>& dx) {
  dx.resize(dy.n(), this->in_);
  dx.set_zero();
  const Eigen::Index pixels = cols_.cols();
  for (int n = 0; n < dy.n(); ++n) {
    ConstMatMap<T> dyn(dy.sample(n), filters_, pixels);
    dcols_.noalias() = weight_.value.mat().transpose() * dyn;
    col2im(dx.sample(n));
  }
}

template <typename T>
void Conv2d<T>::backward_weight(const Tensor<T>& x, const Tensor<T>& dy) {
  const Eigen::Index pixels = cols_.cols();
  auto dw = weight_.grad.mat();
  for (int n = 0; n < x.n(); ++n) {
    im2col(x.sample(n));
    ConstMatMap<T> dyn(dy.sample(n), filters_, pixels);
    dw.noalias() += dyn * cols_.transpose();
    if (has_bias_) bias_.grad.mat().row(0) += dyn.rowwise().sum().transpose();
  }
}

template <typename T>
std::vector<Param<T>*> Conv2d<T>::params() {
  if (has_bias_) return {&weight_, &bias_};
  return {&weight_};
}

template <typename T>
std::int64_t Conv2d<T>::forward_macs() const {
  return this->out_.size() * static_cast<std::int64_t>(this->in_.c) * kernel_ * kernel_;
}

template <typename T>
void Conv2d<T>::init(const InitSpec& spec, Rng& rng) {
  const std::int64_t k2 = static_cast<std::int64_t>(kernel_) * kernel_;
  init_params<T>(spec, rng, this->in_.c * k2, filters_ * k2, weight_.value,
                 has_bias_ ? &bias_.value : nullptr);
}

template class Conv2d<float>;
template class Conv2d<double>;

}  // namespace trainsim
