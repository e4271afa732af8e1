// The direct convolution kernels with output positions in the vector lanes
// (sim/nn/direct_conv.h). Every multiply-add is simd::fma: each forward output is one fused
// chain over its taps in (c, r, s) order, on every build.
#include "sim/nn/constant_dispatch.h"
#include "sim/nn/direct_conv_layout.h"
#include "sim/nn/kernels/kernel_impl.h"
#include "sim/nn/simd.h"

namespace trainsim::TRAINSIM_KERNEL_NS {

namespace {
using namespace direct_layout;

// The weight-gradient kernel keeps filters x k accumulators (one per tap of a kernel row), at
// most kGradAccumulators registers.
constexpr int kGradAccumulators = 12;
constexpr int kMaxKernel = 7;

// The widest vectors (simd::Wide): a lane is one output position, its own chain of
// multiply-adds, so the width changes no bit (backward-data's adds into dx, below, are
// another matter). A step is NV of them; wide() is a multiple of kDirectStep, so steps of two
// vectors and at most one step of one cover it.
static_assert(kDirectStep % simd::kWideLanes<float> == 0 &&
                  kDirectStep % simd::kWideLanes<double> == 0,
              "one-vector steps cover what two-vector steps leave of wide()");

// Filters [0, FB) at positions [q, q + NV * kWideLanes).
template <typename T, int FB, int NV>
void forward_step(const DirectShape& s, const T* packed, const T* x, std::int64_t q, T* out) {
  using V = simd::Wide<T>;
  constexpr int L = simd::kWideLanes<T>;
  const int k = s.kernel;
  const std::int64_t plane = s.plane(), wide = s.wide();
  V acc[FB][NV];
  for (int f = 0; f < FB; ++f)
    for (int v = 0; v < NV; ++v) acc[f][v] = simd::splat_as<V>(T(0));
  const T* w = packed;
  for (int c = 0; c < s.channels; ++c) {
    for (int r = 0; r < k; ++r) {
      const T* row = x + c * plane + r * s.pitch + q;
      for (int t = 0; t < k; ++t, w += FB) {
        V in[NV];
        for (int v = 0; v < NV; ++v) in[v] = simd::load_as<V>(row + t + v * L);
        for (int f = 0; f < FB; ++f) {
          const V wf = simd::splat_as<V>(w[f]);
          for (int v = 0; v < NV; ++v) acc[f][v] = simd::fma(wf, in[v], acc[f][v]);
        }
      }
    }
  }
  for (int f = 0; f < FB; ++f)
    for (int v = 0; v < NV; ++v) simd::store_as(out + f * wide + q + v * L, acc[f][v]);
}

template <typename T, int FB>
void forward_block(const DirectShape& s, const T* packed, const T* x, T* out) {
  constexpr int L = simd::kWideLanes<T>;
  const std::int64_t wide = s.wide();
  std::int64_t q = 0;
  for (; q + 2 * L <= wide; q += 2 * L) forward_step<T, FB, 2>(s, packed, x, q, out);
  for (; q < wide; q += L) forward_step<T, FB, 1>(s, packed, x, q, out);
}

// Registers of the weight gradient: G filters' fixed-width vectors side by side (G = 2 where
// the build's registers hold two, as AVX-512's do). A lane still sums one filter's positions
// q = lane (mod kLanes) in order, as the fixed-width code does, so G changes no bit; only the
// final lane sums read a register in parts.
template <typename T, int G>
using GradReg = typename simd::VecOf<T, G * simd::kLanes<T>>::type;
// Whether this build's registers hold two fixed-width vectors.
template <typename T>
constexpr bool kFilterPairs = simd::kWideLanes<T> >= 2 * simd::kLanes<T>;

// G fixed-width vectors, the g-th from p + g * stride, as one register.
template <typename T, int G>
GradReg<T, G> load_filters(const T* p, std::int64_t stride) {
  if constexpr (G == 1) {
    return simd::load(p);
  } else {
    static_assert(G == 2, "one or two filters a register");
    return simd::join(simd::load(p), simd::load(p + stride));
  }
}
// v in each of the G parts of a register.
template <typename T, int G>
GradReg<T, G> repeat(simd::Vec<T> v) {
  if constexpr (G == 1) {
    return v;
  } else {
    return simd::join(v, v);
  }
}

// The sum of lanes [part * kLanes, (part + 1) * kLanes) of a register, in index order.
template <typename T, typename R>
T lane_sum(R v, int part = 0) {
  T sum = T(0);
  for (int l = 0; l < simd::kLanes<T>; ++l) sum += v[part * simd::kLanes<T> + l];
  return sum;
}

// Filters [0, FB) x taps (r, 0..K-1) of channel c, for every sample, accumulated in registers
// of G filters each.
template <typename T, int K, int FB, int G>
void grad_row(const DirectShape& s, const T* dy, std::int64_t dy_stride, const T* x,
              std::int64_t x_stride, int samples, int c, int r, T* dw) {
  static_assert(FB % G == 0, "whole registers of filters");
  using R = GradReg<T, G>;
  constexpr int L = simd::kLanes<T>, NR = FB / G;
  const std::int64_t wide = s.wide();
  R acc[NR][K];
  for (int j = 0; j < NR; ++j)
    for (int t = 0; t < K; ++t) acc[j][t] = simd::splat_as<R>(T(0));
  for (int n = 0; n < samples; ++n) {
    const T* g = dy + n * dy_stride;
    const T* row = x + n * x_stride + c * s.plane() + r * s.pitch;
    for (std::int64_t q = 0; q < wide; q += L) {
      R d[NR];
      for (int j = 0; j < NR; ++j) d[j] = load_filters<T, G>(g + j * G * wide + q, wide);
      for (int t = 0; t < K; ++t) {
        const R v = repeat<T, G>(simd::load(row + q + t));
        for (int j = 0; j < NR; ++j) acc[j][t] = simd::fma(d[j], v, acc[j][t]);
      }
    }
  }
  const std::int64_t filter_stride = static_cast<std::int64_t>(s.channels) * K * K;
  for (int j = 0; j < NR; ++j)
    for (int h = 0; h < G; ++h)
      for (int t = 0; t < K; ++t)
        dw[(j * G + h) * filter_stride + (c * K + r) * K + t] += lane_sum<T>(acc[j][t], h);
}

template <typename T, int K, int FB>
void grad_filters(const DirectShape& s, const T* dy, std::int64_t dy_stride, const T* x,
                  std::int64_t x_stride, int samples, T* dw) {
  // Two filters a register where the registers are wide enough and the block even.
  constexpr int G = kFilterPairs<T> && FB % 2 == 0 ? 2 : 1;
  for (int c = 0; c < s.channels; ++c)
    for (int r = 0; r < K; ++r)
      grad_row<T, K, FB, G>(s, dy, dy_stride, x, x_stride, samples, c, r, dw);
}

// All filters, kGradAccumulators / K registers at a time (the last group smaller): blocks of
// twice as many filters where a register holds two.
template <typename T, int K>
void grad_kernel(const DirectShape& s, const T* dy, std::int64_t dy_stride, const T* x,
                 std::int64_t x_stride, int samples, T* dw) {
  constexpr int kBlock = kGradAccumulators / K * (kFilterPairs<T> ? 2 : 1);
  const std::int64_t filter_stride = static_cast<std::int64_t>(s.channels) * K * K;
  int f0 = 0;
  for (; f0 + kBlock <= s.filters; f0 += kBlock)
    grad_filters<T, K, kBlock>(s, dy + f0 * s.wide(), dy_stride, x, x_stride, samples,
                               dw + f0 * filter_stride);
  // The filters left, in pairs where registers hold two, then one alone: an odd count in one
  // block would hold one filter a register, more of them than the registers. Every weight's
  // sum is its own, so the cut changes no bit.
  auto rest_block = [&](int first, int count) {
    with_constant<kBlock>(count, [&](auto fb) {
      grad_filters<T, K, fb>(s, dy + first * s.wide(), dy_stride, x, x_stride, samples,
                             dw + first * filter_stride);
    });
  };
  const int rest = s.filters - f0;
  const int single = kFilterPairs<T> && rest % 2 == 1 ? 1 : 0;
  if (rest > single) rest_block(f0, rest - single);
  if (single == 1) rest_block(s.filters - 1, 1);
}

// Backward-data for TB taps at positions [q, q + NV * kWideLanes): the taps' sums over
// filters (each lane one position's chain, as in forward_step), then added into dx at each
// tap's offset, tap after tap.
template <typename T, int TB, int NV>
void data_step(const DirectShape& s, const T* packed, const std::int64_t (&offset)[TB], const T* dy,
               std::int64_t q, T* dx) {
  using V = simd::Wide<T>;
  constexpr int L = simd::kWideLanes<T>;
  const std::int64_t wide = s.wide();
  V acc[TB][NV];
  for (int t = 0; t < TB; ++t)
    for (int v = 0; v < NV; ++v) acc[t][v] = simd::splat_as<V>(T(0));
  const T* w = packed;
  for (int f = 0; f < s.filters; ++f, w += TB) {
    V g[NV];
    for (int v = 0; v < NV; ++v) g[v] = simd::load_as<V>(dy + f * wide + q + v * L);
    for (int t = 0; t < TB; ++t) {
      const V wt = simd::splat_as<V>(w[t]);
      for (int v = 0; v < NV; ++v) acc[t][v] = simd::fma(wt, g[v], acc[t][v]);
    }
  }
  for (int t = 0; t < TB; ++t)
    for (int v = 0; v < NV; ++v) {
      T* out = dx + offset[t] + q + v * L;
      simd::store_as(out, simd::load_as<V>(out) + acc[t][v]);
    }
}

template <typename T, int TB>
void data_block(const DirectShape& s, const T* packed, int t0, const T* dy, T* dx) {
  constexpr int L = simd::kWideLanes<T>;
  const int k = s.kernel, k2 = k * k;
  const std::int64_t wide = s.wide();
  std::int64_t offset[TB];
  for (int t = 0; t < TB; ++t) {
    const int tap = data_tap(s, t0 + t), c = tap / k2, r = tap % k2 / k, col = tap % k;
    offset[t] = c * s.plane() + r * s.pitch + col;
  }
  // With fewer channels than kDataTaps, taps of one block add into the same values, in an
  // order that follows the step: steps of two fixed-width vectors on every build (16 floats,
  // 8 doubles), as the fixed-width code took them. With as many channels, a block's taps are
  // in different planes (data_tap), and what one tap's run adds past its plane's end are
  // chains over dy's zero padding: exact zero products from +0, so +0 (for finite weights).
  // Adding +0 changes no value of dx that is not -0, and none is: dx starts at +0, and a sum
  // is -0 only when both terms are. Then any step gives the same bits, and two registers a
  // step keep twice the multiply-adds in flight.
  constexpr int kFixedStep = kStepVectors * simd::kLanes<T>;
  static_assert(kFixedStep % L == 0, "a fixed step is whole registers");
  std::int64_t q = 0;
  if (s.channels >= kDataTaps)
    for (; q + 2 * L <= wide; q += 2 * L) data_step<T, TB, 2>(s, packed, offset, dy, q, dx);
  for (; q < wide; q += kFixedStep) data_step<T, TB, kFixedStep / L>(s, packed, offset, dy, q, dx);
}

}  // namespace

template <typename T>
void direct_forward(const DirectShape& s, const T* packed, const T* x, T* out) {
  const int taps = s.channels * s.kernel * s.kernel;
  for_filter_blocks(s.filters, [&](int f0, int fb) {
    with_constant<kForwardFilters>(fb, [&](auto n) {
      forward_block<T, n>(s, packed + static_cast<std::int64_t>(f0) * taps, x, out + f0 * s.wide());
    });
  });
}

template <typename T>
void direct_backward_data(const DirectShape& s, const T* packed, const T* dy, T* dx) {
  for_tap_blocks(s.channels * s.kernel * s.kernel, [&](int t0, int tb) {
    with_constant<kDataTaps>(tb, [&](auto n) {
      data_block<T, n>(s, packed + static_cast<std::int64_t>(t0) * s.filters, t0, dy, dx);
    });
  });
}

template <typename T>
void direct_weight_grad(const DirectShape& s, const T* dy, std::int64_t dy_stride, const T* x,
                        std::int64_t x_stride, int samples, T* dw) {
  // Kernel sizes 2 to kMaxKernel (direct_conv_supported).
  with_constant<kMaxKernel>(
      s.kernel, [&](auto k) { grad_kernel<T, k>(s, dy, dy_stride, x, x_stride, samples, dw); });
}

template <typename T>
void direct_bias_grad(const DirectShape& s, const T* dy, std::int64_t dy_stride, int samples,
                      T* db) {
  constexpr int L = simd::kLanes<T>;
  const std::int64_t wide = s.wide();
  for (int f = 0; f < s.filters; ++f) {
    simd::Vec<T> lo = simd::splat(T(0)), hi = lo;
    for (int n = 0; n < samples; ++n) {
      const T* g = dy + n * dy_stride + f * wide;
      for (std::int64_t q = 0; q < wide; q += 2 * L) {
        lo += simd::load(g + q);
        hi += simd::load(g + q + L);
      }
    }
    db[f] += lane_sum<T>(lo) + lane_sum<T>(hi);
  }
}

#define TRAINSIM_DIRECT_CONV(T)                                                             \
  template void direct_forward<T>(const DirectShape&, const T*, const T*, T*);              \
  template void direct_backward_data<T>(const DirectShape&, const T*, const T*, T*);        \
  template void direct_weight_grad<T>(const DirectShape&, const T*, std::int64_t, const T*, \
                                      std::int64_t, int, T*);                               \
  template void direct_bias_grad<T>(const DirectShape&, const T*, std::int64_t, int, T*);
TRAINSIM_DIRECT_CONV(float)
TRAINSIM_DIRECT_CONV(double)
#undef TRAINSIM_DIRECT_CONV

}  // namespace trainsim::TRAINSIM_KERNEL_NS
