#pragma once
// Fixed-width row kernels of the systolic engines: a row of PEs' MACs in one clock, as
// 8-double vectors (GCC's vector extension; unaligned loads and stores through memcpy).
// Written out because the compiler, left to a row loop of runtime width over one register
// array, either checks for overlap at every call or keeps the loop scalar; the engines' time
// is this loop. `Width` is a multiple of 8. Each is written as the general loops write it
// (dst = add + a * b), so both round, and contract to FMAs, alike.
#include <cstring>
#include <type_traits>

namespace trainsim {

using Doubles8 = double __attribute__((vector_size(64)));

// No function takes or returns a Doubles8 by value: on a machine without AVX-512 that would
// change the ABI (GCC's -Wpsabi); the vectors live in registers inside each loop.

/// dst[j] = add[j] + a[j] * b[j] for j < Width; `dst` may be `add`.
template <int Width>
inline void row_fma(double* dst, const double* add, const double* a, const double* b) {
  static_assert(Width % 8 == 0, "whole vectors only");
  for (int j = 0; j < Width; j += 8) {
    Doubles8 x, y, z;
    std::memcpy(&x, add + j, sizeof x);
    std::memcpy(&y, a + j, sizeof y);
    std::memcpy(&z, b + j, sizeof z);
    const Doubles8 r = x + y * z;
    std::memcpy(dst + j, &r, sizeof r);
  }
}

/// dst[j] = a[j] * b[j] for j < Width.
template <int Width>
inline void row_mul(double* dst, const double* a, const double* b) {
  static_assert(Width % 8 == 0, "whole vectors only");
  for (int j = 0; j < Width; j += 8) {
    Doubles8 y, z;
    std::memcpy(&y, a + j, sizeof y);
    std::memcpy(&z, b + j, sizeof z);
    const Doubles8 r = y * z;
    std::memcpy(dst + j, &r, sizeof r);
  }
}

/// Calls f(std::integral_constant<int, W>) with W the fixed width `c` has a kernel for (8,
/// 16, 32), or W = 0 (the caller's general loop) for any other.
template <class F>
inline void with_row_width(long c, F&& f) {
  switch (c) {
    case 8:
      return f(std::integral_constant<int, 8>{});
    case 16:
      return f(std::integral_constant<int, 16>{});
    case 32:
      return f(std::integral_constant<int, 32>{});
    default:
      return f(std::integral_constant<int, 0>{});
  }
}

}  // namespace trainsim
