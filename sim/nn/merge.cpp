#include "sim/nn/merge.h"

#include <algorithm>

#include "sim/core/error.h"
#include "sim/core/parallel.h"

namespace trainsim {

namespace {
// Values per task (see activation.cpp).
constexpr std::int64_t kGrain = 1 << 14;
}  // namespace

template <typename T>
Add<T>::Add(const std::vector<Shape>& ins) {
  for (const Shape& s : ins)
    if (s != ins.front())
      throw UserError("inputs differ in shape: " + ins.front().str() + " and " + s.str());
  this->in_ = this->out_ = ins.front();
}

template <typename T>
void Add<T>::forward(const Tensor<T>& x, Tensor<T>& y) {
  Tensor<T> none;
  forward_graph({&x}, y, none);
}

template <typename T>
void Add<T>::backward_data(const Tensor<T>& x, const Tensor<T>& y, const Tensor<T>& dy,
                           Tensor<T>& dx) {
  dx = dy;
}

template <typename T>
void Add<T>::forward_graph(const LayerInputs<T>& xs, Tensor<T>& y, Tensor<T>& saved) {
  y.resize(xs[0]->n(), this->out_);
  T* out = y.data();
  // The inputs are added in their `from` order, the same for every value.
  parallel_ranges(static_cast<std::int64_t>(y.size()), kGrain,
                  [&](std::int64_t begin, std::int64_t end) {
                    std::copy(xs[0]->data() + begin, xs[0]->data() + end, out + begin);
                    for (std::size_t k = 1; k < xs.size(); ++k) {
                      const T* x = xs[k]->data();
                      for (std::int64_t i = begin; i < end; ++i) out[i] += x[i];
                    }
                  });
}

template <typename T>
void Add<T>::backward_data_graph(const LayerInputs<T>& xs, const Tensor<T>& y,
                                 const Tensor<T>& saved, const Tensor<T>& dy, std::size_t k,
                                 Tensor<T>& dx) {
  dx.resize(dy.n(), this->in_);
  std::copy(dy.data(), dy.data() + dy.size(), dx.data());
}

template <typename T>
Concat<T>::Concat(const std::vector<Shape>& ins) : ins_(ins) {
  std::int64_t c = 0;
  for (const Shape& s : ins) {
    if (s.h != ins.front().h || s.w != ins.front().w)
      throw UserError("inputs differ in height x width: " + ins.front().str() + " and " + s.str());
    offset_.push_back(c * s.h * s.w);
    c += s.c;
  }
  this->in_ = ins.front();
  this->out_ = Shape{static_cast<int>(c), ins.front().h, ins.front().w};
}

template <typename T>
void Concat<T>::forward(const Tensor<T>& x, Tensor<T>& y) {
  Tensor<T> none;
  forward_graph({&x}, y, none);
}

template <typename T>
void Concat<T>::backward_data(const Tensor<T>& x, const Tensor<T>& y, const Tensor<T>& dy,
                              Tensor<T>& dx) {
  Tensor<T> none;
  backward_data_graph({&x}, y, none, dy, 0, dx);
}

template <typename T>
void Concat<T>::forward_graph(const LayerInputs<T>& xs, Tensor<T>& y, Tensor<T>& saved) {
  const int n = xs[0]->n();
  y.resize(n, this->out_);
  parallel_for(n, [&](int b, int) {
    for (std::size_t k = 0; k < xs.size(); ++k)
      std::copy(xs[k]->sample(b), xs[k]->sample(b) + xs[k]->sample_size(),
                y.sample(b) + offset_[k]);
  });
}

template <typename T>
void Concat<T>::backward_data_graph(const LayerInputs<T>& xs, const Tensor<T>& y,
                                    const Tensor<T>& saved, const Tensor<T>& dy, std::size_t k,
                                    Tensor<T>& dx) {
  const int n = dy.n();
  dx.resize(n, ins_[k]);
  const std::int64_t size = ins_[k].size();
  parallel_for(n, [&](int b, int) {
    std::copy(dy.sample(b) + offset_[k], dy.sample(b) + offset_[k] + size, dx.sample(b));
  });
}

template class Add<float>;
template class Add<double>;
template class Concat<float>;
template class Concat<double>;

}  // namespace trainsim
