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

/// Vectors of N values of T, any N (a power of two).
template <typename T, int N>
struct VecOf {
  typedef T type __attribute__((vector_size(N * sizeof(T))));
};
/// Lanes of a vector type V.
template <typename V>
inline constexpr std::size_t kLanesOf = sizeof(V) / sizeof(std::declval<V>()[0]);

/// The fixed width: 32 bytes, 8 floats or 4 doubles, for loops whose sums run along the lanes.
template <typename T>
inline constexpr int kLanes = 32 / static_cast<int>(sizeof(T));
template <typename T>
using Vec = typename VecOf<T, kLanes<T>>::type;
/// A comparison's result on Vec<T>: all ones or all zeros per lane.
template <typename T>
using Mask = decltype(Vec<T>{} > Vec<T>{});

/// The widest registers this build has, for loops whose lanes never meet in a sum (each lane
/// its own output, its own chain of multiply-adds): their width cannot change a bit, so they
/// take all of an AVX-512 register where the fixed-width Vec takes half of one. On a core
/// with full-width 512-bit units that doubles their multiply-adds per instruction.
#if defined(__AVX512F__)
inline constexpr int kWideBytes = 64;
#else
inline constexpr int kWideBytes = 32;
#endif
template <typename T>
inline constexpr int kWideLanes = kWideBytes / static_cast<int>(sizeof(T));
template <typename T>
using Wide = typename VecOf<T, kWideLanes<T>>::type;

// Loads, stores, broadcasts, selects and shuffles of a vector type V of any width; the
// fixed-width forms below are these on Vec<T>.
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
template <typename V, typename T, std::size_t... I>
inline V splat_lanes(T x, std::index_sequence<I...>) {
  return V{((void)I, x)...};
}
/// Every lane x (a broadcast; `V{} + x` would cost an add and turn -0 into +0).
template <typename V, typename T>
inline V splat_as(T x) {
  return splat_lanes<V>(x, std::make_index_sequence<kLanesOf<V>>());
}
/// Lane by lane: m ? a : b, m a comparison's result on vectors like a and b.
template <typename M, typename V>
inline V select_of(M m, V a, V b) {
  return reinterpret_cast<V>((reinterpret_cast<M>(a) & m) | (reinterpret_cast<M>(b) & ~m));
}
template <typename V, std::size_t... I>
inline V even_of(V a, V b, std::index_sequence<I...>) {
  return __builtin_shufflevector(a, b, (2 * I)...);
}
template <typename V, std::size_t... I>
inline V odd_of(V a, V b, std::index_sequence<I...>) {
  return __builtin_shufflevector(a, b, (2 * I + 1)...);
}
// a0 b0 a1 b1 ... from lane kFirst of each.
template <std::size_t kFirst, typename V, std::size_t... I>
inline V zip_of(V a, V b, std::index_sequence<I...>) {
  return __builtin_shufflevector(a, b, (kFirst + I / 2 + (I % 2) * kLanesOf<V>)...);
}
/// The even / odd lanes of the 2L values a:b, in order.
template <typename V>
inline V even_of(V a, V b) {
  return even_of(a, b, std::make_index_sequence<kLanesOf<V>>());
}
template <typename V>
inline V odd_of(V a, V b) {
  return odd_of(a, b, std::make_index_sequence<kLanesOf<V>>());
}
/// Interleaves a and b (a0 b0 a1 b1 ...): the first L values, then the last L.
template <typename V>
inline V zip_low_of(V a, V b) {
  return zip_of<0>(a, b, std::make_index_sequence<kLanesOf<V>>());
}
template <typename V>
inline V zip_high_of(V a, V b) {
  return zip_of<kLanesOf<V> / 2>(a, b, std::make_index_sequence<kLanesOf<V>>());
}
template <typename V, std::size_t... I>
inline auto join(V a, V b, std::index_sequence<I...>) {
  return __builtin_shufflevector(a, b, I...);
}
/// a's lanes, then b's: one vector of twice the width.
template <typename V>
inline auto join(V a, V b) {
  return join(a, b, std::make_index_sequence<2 * kLanesOf<V>>());
}

template <typename T>
inline Vec<T> load(const T* p) {
  return load_as<Vec<T>>(p);
}
template <typename T>
inline void store(T* p, Vec<T> v) {
  store_as(p, v);
}
template <typename T>
inline Vec<T> splat(T x) {
  return splat_as<Vec<T>>(x);
}
template <typename T>
inline Vec<T> select(Mask<T> m, Vec<T> a, Vec<T> b) {
  return select_of(m, a, b);
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
