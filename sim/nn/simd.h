#pragma once
// Fixed-width SIMD vectors for the numerics' hand-vectorised loops (max pooling, the direct
// convolutions): 32 bytes, 8 floats or 4 doubles, as GCC / clang vector extensions, so the
// same source compiles to AVX2, to half of an AVX-512 register or to two SSE registers.
// We write these loops out because GCC vectorises their plain forms only where AVX-512's
// masked operations let it (on AVX2 it keeps data-dependent branches, 5-10x slower), and the
// fixed width fixes the order of every sum that runs along the lanes, whatever the ISA. Loops
// whose lanes never meet take the widest registers instead (Wide, below).
//
// Multiply-adds are explicit: fma() rounds once on every build, one instruction where the
// CPU has FMA and std::fma lane by lane where it does not (the same bits, slower). The
// numerics are compiled with -ffp-contract=off (CMakeLists.txt), so `a * b + c` rounds twice
// everywhere instead of being fused on some builds only.
//
// Selects use bit masks rather than `?:` on vectors, and shuffles __builtin_shufflevector:
// both are accepted by GCC 12 and clang 14 (the fuzz build).
#include <cmath>
#include <cstdint>
#include <cstring>
#include <utility>
#if defined(__FMA__) || defined(__AVX512F__)
#include <immintrin.h>
#endif

#include "sim/nn/kernel_namespace.h"

// Inline functions here compile to different instructions in the kernels built for plain
// x86-64 (sim/nn/kernels/): the inner namespace keeps the linker from merging the two builds'
// copies.
namespace trainsim::simd {
inline namespace TRAINSIM_KERNEL_NS {

template <typename T>
struct Traits;
template <>
struct Traits<float> {
  typedef float V __attribute__((vector_size(32)));
  typedef std::int32_t M __attribute__((vector_size(32)));
  static constexpr int kLanes = 8;
  static V splat(float x) { return V{x, x, x, x, x, x, x, x}; }
};
template <>
struct Traits<double> {
  typedef double V __attribute__((vector_size(32)));
  typedef std::int64_t M __attribute__((vector_size(32)));
  static constexpr int kLanes = 4;
  static V splat(double x) { return V{x, x, x, x}; }
};

template <typename T>
using Vec = typename Traits<T>::V;
template <typename T>
using Mask = typename Traits<T>::M;
template <typename T>
inline constexpr int kLanes = Traits<T>::kLanes;

template <typename T>
inline Vec<T> load(const T* p) {
  Vec<T> v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
template <typename T>
inline void store(T* p, Vec<T> v) {
  std::memcpy(p, &v, sizeof v);
}
/// Every lane x (a broadcast; `Vec<T>{} + x` would cost an add and turn -0 into +0).
template <typename T>
inline Vec<T> splat(T x) {
  return Traits<T>::splat(x);
}
/// Lane by lane: m ? a : b, with m all ones or all zeros (a comparison's result).
template <typename T>
inline Vec<T> select(Mask<T> m, Vec<T> a, Vec<T> b) {
  return reinterpret_cast<Vec<T>>((reinterpret_cast<Mask<T>>(a) & m) |
                                  (reinterpret_cast<Mask<T>>(b) & ~m));
}

/// The even / odd lanes of the 2L values a:b, in order.
inline Vec<float> even(Vec<float> a, Vec<float> b) {
  return __builtin_shufflevector(a, b, 0, 2, 4, 6, 8, 10, 12, 14);
}
inline Vec<float> odd(Vec<float> a, Vec<float> b) {
  return __builtin_shufflevector(a, b, 1, 3, 5, 7, 9, 11, 13, 15);
}
inline Vec<double> even(Vec<double> a, Vec<double> b) {
  return __builtin_shufflevector(a, b, 0, 2, 4, 6);
}
inline Vec<double> odd(Vec<double> a, Vec<double> b) {
  return __builtin_shufflevector(a, b, 1, 3, 5, 7);
}
/// Interleaves a and b (a0 b0 a1 b1 ...): the first L values, then the last L.
inline Vec<float> zip_low(Vec<float> a, Vec<float> b) {
  return __builtin_shufflevector(a, b, 0, 8, 1, 9, 2, 10, 3, 11);
}
inline Vec<float> zip_high(Vec<float> a, Vec<float> b) {
  return __builtin_shufflevector(a, b, 4, 12, 5, 13, 6, 14, 7, 15);
}
inline Vec<double> zip_low(Vec<double> a, Vec<double> b) {
  return __builtin_shufflevector(a, b, 0, 4, 1, 5);
}
inline Vec<double> zip_high(Vec<double> a, Vec<double> b) {
  return __builtin_shufflevector(a, b, 2, 6, 3, 7);
}

/// Vectors of N values of T, any N (a power of two): the kernels whose sums do not run along
/// the lanes pick their width by ISA (sim/nn/kernels/gemm.cpp).
template <typename T, int N>
struct VecOf {
  typedef T type __attribute__((vector_size(N * sizeof(T))));
};
template <typename V, typename T, std::size_t... I>
inline V broadcast_lanes(T x, std::index_sequence<I...>) {
  return V{((void)I, x)...};
}
/// Every lane of a VecOf<T, N> x (as splat).
template <typename T, int N>
inline typename VecOf<T, N>::type broadcast(T x) {
  return broadcast_lanes<typename VecOf<T, N>::type>(x, std::make_index_sequence<N>());
}

/// a's lanes, then b's: one vector of twice the width.
inline VecOf<float, 16>::type join(Vec<float> a, Vec<float> b) {
  return __builtin_shufflevector(a, b, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
}
inline VecOf<double, 8>::type join(Vec<double> a, Vec<double> b) {
  return __builtin_shufflevector(a, b, 0, 1, 2, 3, 4, 5, 6, 7);
}

/// The widest registers this build has, for loops whose lanes never meet in a sum (each lane
/// its own output, its own chain of multiply-adds): their width cannot change a bit, so they
/// take all of an AVX-512 register where the fixed-width Vec above takes half of one. On a
/// core with full-width 512-bit units that doubles their multiply-adds per instruction.
#if defined(__AVX512F__)
inline constexpr int kWideBytes = 64;
#else
inline constexpr int kWideBytes = 32;
#endif
template <typename T>
inline constexpr int kWideLanes = kWideBytes / static_cast<int>(sizeof(T));
template <typename T>
using Wide = typename VecOf<T, kWideLanes<T>>::type;

/// Shuffles and selects for a vector type V of any width (Wide, say), as even(), odd(),
/// zip_low(), zip_high() and select() above do for the fixed width.
template <typename V>
inline constexpr std::size_t kLanesOf = sizeof(V) / sizeof(std::declval<V>()[0]);
template <typename V, std::size_t... I>
inline V even_of(V a, V b, std::index_sequence<I...>) {
  return __builtin_shufflevector(a, b, (2 * I)...);
}
template <typename V, std::size_t... I>
inline V odd_of(V a, V b, std::index_sequence<I...>) {
  return __builtin_shufflevector(a, b, (2 * I + 1)...);
}
/// a0 b0 a1 b1 ... from lane `first` of each.
template <std::size_t kFirst, typename V, std::size_t... I>
inline V zip_of(V a, V b, std::index_sequence<I...>) {
  return __builtin_shufflevector(a, b, (kFirst + I / 2 + (I % 2) * kLanesOf<V>)...);
}
template <typename V>
inline V even_of(V a, V b) {
  return even_of(a, b, std::make_index_sequence<kLanesOf<V>>());
}
template <typename V>
inline V odd_of(V a, V b) {
  return odd_of(a, b, std::make_index_sequence<kLanesOf<V>>());
}
template <typename V>
inline V zip_low_of(V a, V b) {
  return zip_of<0>(a, b, std::make_index_sequence<kLanesOf<V>>());
}
template <typename V>
inline V zip_high_of(V a, V b) {
  return zip_of<kLanesOf<V> / 2>(a, b, std::make_index_sequence<kLanesOf<V>>());
}
/// Lane by lane: m ? a : b, m a comparison's result on vectors like a and b.
template <typename M, typename V>
inline V select_of(M m, V a, V b) {
  return reinterpret_cast<V>((reinterpret_cast<M>(a) & m) | (reinterpret_cast<M>(b) & ~m));
}

/// Load, store and broadcast for a vector type V of any width above.
template <typename V, typename T>
inline V load_as(const T* p) {
  V v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
template <typename T, typename V>
inline void store_as(T* p, V v) {
  std::memcpy(p, &v, sizeof v);
}
template <typename V, typename T>
inline V splat_as(T x) {
  return broadcast_lanes<V>(x, std::make_index_sequence<sizeof(V) / sizeof(T)>());
}

/// a * b + c lane by lane, rounded once.
template <typename V>
inline V fma(V a, V b, V c) {
#if defined(__AVX512F__)
  if constexpr (sizeof(V) == 64 && sizeof(a[0]) == 4)
    return reinterpret_cast<V>(_mm512_fmadd_ps(
        reinterpret_cast<__m512>(a), reinterpret_cast<__m512>(b), reinterpret_cast<__m512>(c)));
  if constexpr (sizeof(V) == 64 && sizeof(a[0]) == 8)
    return reinterpret_cast<V>(_mm512_fmadd_pd(
        reinterpret_cast<__m512d>(a), reinterpret_cast<__m512d>(b), reinterpret_cast<__m512d>(c)));
#endif
#if defined(__FMA__)
  if constexpr (sizeof(V) == 32 && sizeof(a[0]) == 4)
    return reinterpret_cast<V>(_mm256_fmadd_ps(
        reinterpret_cast<__m256>(a), reinterpret_cast<__m256>(b), reinterpret_cast<__m256>(c)));
  if constexpr (sizeof(V) == 32 && sizeof(a[0]) == 8)
    return reinterpret_cast<V>(_mm256_fmadd_pd(
        reinterpret_cast<__m256d>(a), reinterpret_cast<__m256d>(b), reinterpret_cast<__m256d>(c)));
#endif
  // No FMA instruction for this width: libm's, lane by lane (itself the instruction where
  // the CPU has one, found at run time; exact in software where not).
  V r;
  for (unsigned l = 0; l < sizeof(V) / sizeof(a[0]); ++l) r[l] = std::fma(a[l], b[l], c[l]);
  return r;
}
/// The scalar form: a * b + c rounded once.
inline float fma(float a, float b, float c) {
  return std::fma(a, b, c);
}
inline double fma(double a, double b, double c) {
  return std::fma(a, b, c);
}

}  // namespace TRAINSIM_KERNEL_NS
}  // namespace trainsim::simd
