#pragma once
// A 64-byte-aligned allocator for tensor storage. Eigen's vectorised kernels peel a
// different number of leading elements depending on a buffer's address modulo the vector
// width, which changes the order of floating-point sums. With malloc's 16-byte alignment
// and address-space randomisation, that made two runs of the same experiment differ in the
// last bits (and, after a few hundred SGD steps, in accuracy). Aligning every buffer to a
// full cache line (>= any SIMD width) makes results reproducible run to run.
#include <cstddef>
#include <new>

namespace trainsim {

template <typename T, std::size_t Align = 64>
struct AlignedAllocator {
  using value_type = T;
  template <typename U>
  struct rebind {
    using other = AlignedAllocator<U, Align>;
  };
  AlignedAllocator() = default;
  template <typename U>
  AlignedAllocator(const AlignedAllocator<U, Align>&) {}

  T* allocate(std::size_t n) {
    return static_cast<T*>(::operator new(n * sizeof(T), std::align_val_t(Align)));
  }
  void deallocate(T* p, std::size_t) { ::operator delete(p, std::align_val_t(Align)); }

  template <typename U>
  bool operator==(const AlignedAllocator<U, Align>&) const {
    return true;
  }
  template <typename U>
  bool operator!=(const AlignedAllocator<U, Align>&) const {
    return false;
  }
};

}  // namespace trainsim
