#include "sim/nn/dot_gemm.h"

#include <Eigen/Core>

namespace trainsim {

namespace {
namespace ei = Eigen::internal;

// One MR x NR block of C: MR + NR vector loads feed MR * NR fused multiply-adds per step
// (3 x 4: 7 loads for 12 FMAs, 12 accumulators, within any SIMD register file).
template <typename T, int MR, int NR>
void dot_block(const T* a, const T* b, T* c, int ldc, std::int64_t k) {
  using Packet = typename ei::packet_traits<T>::type;
  constexpr int kLanes = ei::packet_traits<T>::size;
  Packet acc[MR][NR];
  for (int i = 0; i < MR; ++i)
    for (int j = 0; j < NR; ++j) acc[i][j] = ei::pset1<Packet>(T(0));
  std::int64_t q = 0;
  for (; q + kLanes <= k; q += kLanes) {
    Packet av[MR], bv[NR];
    for (int i = 0; i < MR; ++i) av[i] = ei::ploadu<Packet>(a + i * k + q);
    for (int j = 0; j < NR; ++j) bv[j] = ei::ploadu<Packet>(b + j * k + q);
    for (int i = 0; i < MR; ++i)
      for (int j = 0; j < NR; ++j) acc[i][j] = ei::pmadd(av[i], bv[j], acc[i][j]);
  }
  for (int i = 0; i < MR; ++i) {
    for (int j = 0; j < NR; ++j) {
      // The lanes in index order, then the tail: a fixed order, whatever the SIMD width's
      // own horizontal reduction does.
      T lanes[kLanes];
      ei::pstoreu(lanes, acc[i][j]);
      T sum = T(0);
      for (int l = 0; l < kLanes; ++l) sum += lanes[l];
      for (std::int64_t r = q; r < k; ++r) sum += a[i * k + r] * b[j * k + r];
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

template void dot_gemm<float>(const float*, const float*, float*, int, int, std::int64_t);
template void dot_gemm<double>(const double*, const double*, double*, int, int, std::int64_t);

}  // namespace trainsim
