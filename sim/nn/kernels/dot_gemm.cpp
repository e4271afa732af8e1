// dot_gemm and row_sums (sim/nn/kernels.h): sums along the vector lanes, in the fixed-width
// vectors of sim/nn/simd.h (8 floats, 4 doubles) on every ISA, so their order is this file's:
// lane l sums the elements l, l + L, l + 2L, ... of its row in order, then the lanes are added
// in index order, then the last elements (fewer than L) one by one.
#include "sim/nn/kernels/kernel_impl.h"
#include "sim/nn/simd.h"

namespace trainsim::TRAINSIM_KERNEL_NS {

namespace {

template <typename T>
T lane_sum(simd::Vec<T> v) {
  T sum = T(0);
  for (int l = 0; l < simd::kLanes<T>; ++l) sum += v[l];
  return sum;
}

// One MR x NR block of C: MR + NR vector loads feed MR * NR fused multiply-adds per step
// (3 x 4: 7 loads for 12 FMAs, 12 accumulators, within any SIMD register file).
template <typename T, int MR, int NR>
void dot_block(const T* a, const T* b, T* c, int ldc, std::int64_t k) {
  using V = simd::Vec<T>;
  constexpr int L = simd::kLanes<T>;
  V acc[MR][NR];
  for (int i = 0; i < MR; ++i)
    for (int j = 0; j < NR; ++j) acc[i][j] = simd::splat(T(0));
  std::int64_t q = 0;
  for (; q + L <= k; q += L) {
    V av[MR], bv[NR];
    for (int i = 0; i < MR; ++i) av[i] = simd::load(a + i * k + q);
    for (int j = 0; j < NR; ++j) bv[j] = simd::load(b + j * k + q);
    for (int i = 0; i < MR; ++i)
      for (int j = 0; j < NR; ++j) acc[i][j] = simd::fma(av[i], bv[j], acc[i][j]);
  }
  for (int i = 0; i < MR; ++i) {
    for (int j = 0; j < NR; ++j) {
      T sum = lane_sum<T>(acc[i][j]);
      for (std::int64_t r = q; r < k; ++r) sum = simd::fma(a[i * k + r], b[j * k + r], sum);
      c[i * ldc + j] += sum;
    }
  }
}

constexpr int kRows = 3, kCols = 4;

template <typename T, int MR>
void dot_rows(const T* a, const T* b, T* c, int n, std::int64_t k) {
  int j = 0;
  for (; j + kCols <= n; j += kCols) dot_block<T, MR, kCols>(a, b + j * k, c + j, n, k);
  switch (n - j) {
    case 3:
      dot_block<T, MR, 3>(a, b + j * k, c + j, n, k);
      break;
    case 2:
      dot_block<T, MR, 2>(a, b + j * k, c + j, n, k);
      break;
    case 1:
      dot_block<T, MR, 1>(a, b + j * k, c + j, n, k);
      break;
    default:
      break;
  }
}
}  // namespace

template <typename T>
void dot_gemm(const T* a, const T* b, T* c, int m, int n, std::int64_t k) {
  int i = 0;
  for (; i + kRows <= m; i += kRows) dot_rows<T, kRows>(a + i * k, b, c + i * n, n, k);
  switch (m - i) {
    case 2:
      dot_rows<T, 2>(a + i * k, b, c + i * n, n, k);
      break;
    case 1:
      dot_rows<T, 1>(a + i * k, b, c + i * n, n, k);
      break;
    default:
      break;
  }
}

template <typename T>
void row_sums(const T* x, int rows, std::int64_t cols, T* sums) {
  using V = simd::Vec<T>;
  constexpr int L = simd::kLanes<T>;
  for (int r = 0; r < rows; ++r) {
    const T* row = x + r * cols;
    // Two vectors of partial sums hide the add's latency: lanes 0..L-1 take the elements
    // 2mL + l, lanes L..2L-1 the elements (2m + 1)L + l.
    V lo = simd::splat(T(0)), hi = lo;
    std::int64_t q = 0;
    for (; q + 2 * L <= cols; q += 2 * L) {
      lo += simd::load(row + q);
      hi += simd::load(row + q + L);
    }
    T sum = lane_sum<T>(lo) + lane_sum<T>(hi);
    for (; q < cols; ++q) sum += row[q];
    sums[r] += sum;
  }
}

template void dot_gemm<float>(const float*, const float*, float*, int, int, std::int64_t);
template void dot_gemm<double>(const double*, const double*, double*, int, int, std::int64_t);
template void row_sums<float>(const float*, int, std::int64_t, float*);
template void row_sums<double>(const double*, int, std::int64_t, double*);

}  // namespace trainsim::TRAINSIM_KERNEL_NS
