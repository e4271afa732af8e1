// The filter-lane direct kernels' layouts (sim/nn/direct_conv.h): when they pay, and the
// packing of their weights and gradients; the kernels are in
// sim/nn/kernels/direct_conv_filters.cpp.
#include <algorithm>

#include "sim/nn/direct_conv.h"
#include "sim/nn/direct_conv_layout.h"

namespace trainsim {

using namespace direct_layout;

bool filter_lanes_pay(const DirectShape& s, int lanes) {
  if (s.filters < lanes) return false;
  const double pixels = static_cast<double>(s.out_rows()) * s.out_cols();
  const double pixel_lanes = pixels / static_cast<double>(s.wide());
  const int vectors = (s.filters + lanes - 1) / lanes;
  const double filter_lanes = static_cast<double>(s.filters) / (vectors * lanes);
  return filter_lanes > pixel_lanes;
}

template <typename T>
std::int64_t filter_lanes_width(const DirectShape& s) {
  return static_cast<std::int64_t>(filter_vectors<T>(s)) * simd::kLanes<T>;
}

template <typename T>
void pack_filter_lanes(const DirectShape& s, const T* w, T* packed) {
  const int taps = s.channels * s.kernel * s.kernel;
  const std::int64_t width = filter_lanes_width<T>(s);
  std::fill(packed, packed + taps * width, T(0));
  for (int f = 0; f < s.filters; ++f)
    for (int tap = 0; tap < taps; ++tap)
      packed[tap * width + f] = w[static_cast<std::int64_t>(f) * taps + tap];
}

template <typename T>
void transpose_gradient(const DirectShape& s, const T* dy, T* dyt) {
  const int pixels = s.out_rows() * s.out_cols();
  const std::int64_t width = filter_lanes_width<T>(s);
  std::fill(dyt, dyt + pixels * width, T(0));
  for (int f = 0; f < s.filters; ++f)
    for (int p = 0; p < pixels; ++p)
      dyt[p * width + f] = dy[static_cast<std::int64_t>(f) * pixels + p];
}

template <typename T>
void finish_weight_grad_filters(const DirectShape& s, const T* acc, T* dw) {
  const int taps = s.channels * s.kernel * s.kernel;
  const std::int64_t width = filter_lanes_width<T>(s);
  for (int f = 0; f < s.filters; ++f)
    for (int tap = 0; tap < taps; ++tap)
      dw[static_cast<std::int64_t>(f) * taps + tap] += acc[tap * width + f];
}

#define TRAINSIM_DIRECT_FILTER_LAYOUT(T)                                 \
  template std::int64_t filter_lanes_width<T>(const DirectShape&);       \
  template void pack_filter_lanes<T>(const DirectShape&, const T*, T*);  \
  template void transpose_gradient<T>(const DirectShape&, const T*, T*); \
  template void finish_weight_grad_filters<T>(const DirectShape&, const T*, T*);
TRAINSIM_DIRECT_FILTER_LAYOUT(float)
TRAINSIM_DIRECT_FILTER_LAYOUT(double)
#undef TRAINSIM_DIRECT_FILTER_LAYOUT

}  // namespace trainsim
