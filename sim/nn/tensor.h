#pragma once
// A dense NCHW tensor: a batch of samples, each of per-sample shape (C, H, W). Dense layers
// use (F, 1, 1). Storage is one contiguous row-major buffer, so a batch is also an
// N x (C*H*W) row-major matrix, which is how the layers hand it to the GEMM kernel.
#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "sim/core/aligned.h"
#include "sim/spec/shape.h"

namespace trainsim {

/// Tensor storage: 64-byte aligned so results do not depend on where malloc put a buffer.
template <typename T>
using AlignedVector = std::vector<T, AlignedAllocator<T>>;

template <typename T>
class Tensor {
 public:
  Tensor() = default;
  Tensor(int n, Shape s) { resize(n, s); }

  /// Resizes without preserving values; does not free memory when shrinking, so reusing a
  /// tensor across batches allocates once.
  void resize(int n, Shape s) {
    n_ = n;
    shape_ = s;
    data_.resize(static_cast<std::size_t>(n) * static_cast<std::size_t>(s.size()));
  }
  void set_zero() { std::fill(data_.begin(), data_.end(), T(0)); }

  int n() const { return n_; }
  const Shape& shape() const { return shape_; }
  std::int64_t sample_size() const { return shape_.size(); }
  std::size_t size() const { return data_.size(); }
  T* data() { return data_.data(); }
  const T* data() const { return data_.data(); }
  T* sample(int i) { return data_.data() + static_cast<std::size_t>(i) * shape_.size(); }
  const T* sample(int i) const {
    return data_.data() + static_cast<std::size_t>(i) * shape_.size();
  }
  T& operator[](std::size_t i) { return data_[i]; }
  const T& operator[](std::size_t i) const { return data_[i]; }
  AlignedVector<T>& vec() { return data_; }
  const AlignedVector<T>& vec() const { return data_; }

 private:
  int n_ = 0;
  Shape shape_;
  AlignedVector<T> data_;
};

}  // namespace trainsim
