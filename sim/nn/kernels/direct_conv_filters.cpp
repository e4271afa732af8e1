// The direct convolution kernels with filters in the vector lanes (sim/nn/direct_conv.h): for
// layers of 8 or more filters a group, whose output rows are too short for the pixel-lane
// kernels' wide rows to fill their vectors (LeNet-5's conv2: 16 filters, 10-pixel rows in
// 14-wide ones, 69% of the lanes useful; here 100%).
#include <algorithm>

#include "sim/nn/constant_dispatch.h"
#include "sim/nn/direct_conv_layout.h"
#include "sim/nn/kernels/kernel_impl.h"
#include "sim/nn/simd.h"

namespace trainsim::TRAINSIM_KERNEL_NS {

namespace {
using namespace direct_layout;

// Accumulators per kernel step: pixels (or taps) x filter vectors.
constexpr int kAccumulators = 12;

// FV vectors of the layout's width (simd::Vec, 8 floats: the packed rows are whole ones) held
// in as few registers as the build has: a lane is one filter's chain of multiply-adds, which
// no other lane enters, so the register width changes no bit. With AVX-512 two layout
// vectors are one register.
template <typename T, int FV>
struct FilterRegs {
  static constexpr int kLanes = FV * simd::kLanes<T>;  // filters per step
  static constexpr int kWidth = std::min(kLanes, simd::kWideLanes<T>);
  static constexpr int kCount = kLanes / kWidth;  // registers per step
  using V = typename simd::VecOf<T, kWidth>::type;
};

// Where the pixels [p0, p0 + PB) of a run read their input (oh * pitch + ow in their sample's
// padded planes) and write their output (p in their sample's planes), a pixel index counting
// the run's samples one after another; pixels past the run's last repeat it (computed, never
// stored).
template <int PB>
void pixel_offsets(const DirectShape& s, const SampleRun& run, std::int64_t p0,
                   std::int64_t (&in)[PB], std::int64_t (&out)[PB]) {
  const std::int64_t pixels = static_cast<std::int64_t>(s.out_rows()) * s.out_cols();
  for (int i = 0; i < PB; ++i) {
    const std::int64_t flat = std::min(p0 + i, run.count * pixels - 1);
    const std::int64_t n = flat / pixels, p = flat % pixels;
    in[i] = n * run.x_stride + p / s.out_cols() * s.pitch + p % s.out_cols();
    out[i] = n * run.y_stride + p;
  }
}

// Filter vectors [v0, v0 + FV) of the run's pixels [p0, p0 + PB): every tap in (c, r, s)
// order, each output a fused multiply-add chain from 0 as in the pixel-lane kernel, so both
// give the same bits.
template <typename T, int FV, int PB>
void forward_pixels(const DirectShape& s, const T* packed, const T* x, int v0, std::int64_t p0,
                    const T* bias, const SampleRun& run, T* y) {
  using R = FilterRegs<T, FV>;
  using V = typename R::V;
  constexpr int L = simd::kLanes<T>, W = R::kWidth, NR = R::kCount;
  const int k = s.kernel, width = filter_vectors<T>(s) * L;
  std::int64_t off[PB], out_off[PB];
  pixel_offsets(s, run, p0, off, out_off);
  V acc[PB][NR];
  for (int i = 0; i < PB; ++i)
    for (int j = 0; j < NR; ++j) acc[i][j] = simd::splat_as<V>(T(0));
  const T* w = packed + v0 * L;
  for (int c = 0; c < s.channels; ++c)
    for (int r = 0; r < k; ++r) {
      const T* row = x + c * s.plane() + r * s.pitch;
      for (int t = 0; t < k; ++t, w += width) {
        V wv[NR];
        for (int j = 0; j < NR; ++j) wv[j] = simd::load_as<V>(w + j * W);
        for (int i = 0; i < PB; ++i) {
          const V xv = simd::splat_as<V>(row[off[i] + t]);
          for (int j = 0; j < NR; ++j) acc[i][j] = simd::fma(xv, wv[j], acc[i][j]);
        }
      }
    }
  // Lanes are filters, y is filter-major: out through a small transpose.
  const std::int64_t pixels = static_cast<std::int64_t>(s.out_rows()) * s.out_cols();
  const int count = static_cast<int>(std::min<std::int64_t>(PB, run.count * pixels - p0));
  T tile[PB][R::kLanes];
  for (int i = 0; i < PB; ++i)
    for (int j = 0; j < NR; ++j) simd::store_as(tile[i] + j * W, acc[i][j]);
  const int filters = std::min(R::kLanes, s.filters - v0 * L);
  for (int f = 0; f < filters; ++f) {
    const int filter = v0 * L + f;
    const T b = bias != nullptr ? bias[filter] : T(0);
    T* out = y + static_cast<std::int64_t>(filter) * pixels;
    for (int i = 0; i < count; ++i) out[out_off[i]] = tile[i][f] + b;
  }
}

template <typename T, int FV>
void forward_vectors(const DirectShape& s, const T* packed, const T* x, int v0, const T* bias,
                     const SampleRun& run, T* y) {
  constexpr int PB = kAccumulators / FilterRegs<T, FV>::kCount;
  const std::int64_t pixels = run.count * static_cast<std::int64_t>(s.out_rows()) * s.out_cols();
  for (std::int64_t p0 = 0; p0 < pixels; p0 += PB)
    forward_pixels<T, FV, PB>(s, packed, x, v0, p0, bias, run, y);
}

// Taps [t0, t0 + TB) x filter vectors [v0, v0 + FV) over the pixels of the run's samples in
// order, added to their accumulators acc[tap][filter].
template <typename T, int FV, int TB>
void grad_taps(const DirectShape& s, const T* dyt, const T* x, const SampleRun& run, int v0, int t0,
               int taps, T* acc) {
  using R = FilterRegs<T, FV>;
  using V = typename R::V;
  constexpr int L = simd::kLanes<T>, W = R::kWidth, NR = R::kCount;
  const int k = s.kernel, k2 = k * k, width = filter_vectors<T>(s) * L;
  std::int64_t tap_off[TB];
  for (int i = 0; i < TB; ++i) {
    const int tap = std::min(t0 + i, taps - 1), c = tap / k2;
    tap_off[i] = c * s.plane() + tap % k2 / k * s.pitch + tap % k;
  }
  V sum[TB][NR];
  for (int i = 0; i < TB; ++i)
    for (int j = 0; j < NR; ++j)
      sum[i][j] = simd::load_as<V>(acc + std::min(t0 + i, taps - 1) * width + v0 * L + j * W);
  const T* g = dyt + v0 * L;
  for (int n = 0; n < run.count; ++n) {
    const T* sample = x + n * run.x_stride;
    for (int oh = 0; oh < s.out_rows(); ++oh) {
      for (int ow = 0; ow < s.out_cols(); ++ow, g += width) {
        const T* in = sample + oh * s.pitch + ow;
        V d[NR];
        for (int j = 0; j < NR; ++j) d[j] = simd::load_as<V>(g + j * W);
        for (int i = 0; i < TB; ++i) {
          const V xv = simd::splat_as<V>(in[tap_off[i]]);
          for (int j = 0; j < NR; ++j) sum[i][j] = simd::fma(xv, d[j], sum[i][j]);
        }
      }
    }
  }
  const int count = std::min(TB, taps - t0);
  for (int i = 0; i < count; ++i)
    for (int j = 0; j < NR; ++j) simd::store_as(acc + (t0 + i) * width + v0 * L + j * W, sum[i][j]);
}

template <typename T, int FV>
void grad_vectors(const DirectShape& s, const T* dyt, const T* x, const SampleRun& run, int v0,
                  T* acc) {
  constexpr int TB = kAccumulators / FilterRegs<T, FV>::kCount;
  const int taps = s.channels * s.kernel * s.kernel;
  for (int t0 = 0; t0 < taps; t0 += TB) grad_taps<T, FV, TB>(s, dyt, x, run, v0, t0, taps, acc);
}

// Calls fn(v0, FV) with FV = 2 filter vectors at a time, then 1 for a last single one.
template <typename T, typename F>
void for_filter_vectors(const DirectShape& s, const F& fn) {
  const int vectors = filter_vectors<T>(s);
  for (int v0 = 0; v0 < vectors; v0 += 2)
    with_constant<2>(vectors - v0, [&](auto fv) { fn(v0, fv); });
}
}  // namespace

template <typename T>
void direct_forward_filters(const DirectShape& s, const T* packed, const T* x, const T* bias,
                            const SampleRun& run, T* y) {
  for_filter_vectors<T>(
      s, [&](int v0, auto fv) { forward_vectors<T, fv>(s, packed, x, v0, bias, run, y); });
}

template <typename T>
void direct_weight_grad_filters(const DirectShape& s, const T* dyt, const T* x,
                                const SampleRun& run, T* acc) {
  for_filter_vectors<T>(s, [&](int v0, auto fv) { grad_vectors<T, fv>(s, dyt, x, run, v0, acc); });
}

template <typename T>
void sum_gradient_filters(const DirectShape& s, const T* dyt, int samples, T* sums) {
  constexpr int L = simd::kLanes<T>;
  const std::int64_t pixels = samples * static_cast<std::int64_t>(s.out_rows()) * s.out_cols();
  const std::int64_t width = static_cast<std::int64_t>(filter_vectors<T>(s)) * L;
  for (std::int64_t v = 0; v < width; v += L) {
    simd::Vec<T> sum = simd::load(sums + v);
    for (std::int64_t p = 0; p < pixels; ++p) sum += simd::load(dyt + p * width + v);
    simd::store(sums + v, sum);
  }
}

#define TRAINSIM_DIRECT_FILTERS(T)                                                          \
  template void direct_forward_filters<T>(const DirectShape&, const T*, const T*, const T*, \
                                          const SampleRun&, T*);                            \
  template void direct_weight_grad_filters<T>(const DirectShape&, const T*, const T*,       \
                                              const SampleRun&, T*);                        \
  template void sum_gradient_filters<T>(const DirectShape&, const T*, int, T*);
TRAINSIM_DIRECT_FILTERS(float)
TRAINSIM_DIRECT_FILTERS(double)
#undef TRAINSIM_DIRECT_FILTERS

}  // namespace trainsim::TRAINSIM_KERNEL_NS
