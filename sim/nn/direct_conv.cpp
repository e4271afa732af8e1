// The direct convolutions' geometry and weight packing (sim/nn/direct_conv.h); the kernels
// are in sim/nn/kernels/direct_conv.cpp.
#include "sim/nn/direct_conv.h"

#include "sim/nn/direct_conv_layout.h"

namespace trainsim {

using namespace direct_layout;

namespace {
constexpr int kMaxKernel = 7;
}  // namespace

bool direct_conv_supported(int kernel, int stride) {
  return stride == 1 && kernel >= 2 && kernel <= kMaxKernel;
}

std::int64_t packed_size(const DirectShape& s) {
  return static_cast<std::int64_t>(s.filters) * s.channels * s.kernel * s.kernel;
}

template <typename T>
void pack_forward_weights(const DirectShape& s, const T* w, T* packed) {
  const int taps = s.channels * s.kernel * s.kernel;
  for_filter_blocks(s.filters, [&](int f0, int fb) {
    T* block = packed + static_cast<std::int64_t>(f0) * taps;
    for (int tap = 0; tap < taps; ++tap)
      for (int f = 0; f < fb; ++f)
        block[tap * fb + f] = w[static_cast<std::int64_t>(f0 + f) * taps + tap];
  });
}

template <typename T>
void pack_backward_data_weights(const DirectShape& s, const T* w, T* packed) {
  const int taps = s.channels * s.kernel * s.kernel;
  for_tap_blocks(taps, [&](int t0, int tb) {
    T* block = packed + static_cast<std::int64_t>(t0) * s.filters;
    for (int f = 0; f < s.filters; ++f)
      for (int t = 0; t < tb; ++t)
        block[f * tb + t] = w[static_cast<std::int64_t>(f) * taps + data_tap(s, t0 + t)];
  });
}

#define TRAINSIM_DIRECT_PACKING(T)                                         \
  template void pack_forward_weights<T>(const DirectShape&, const T*, T*); \
  template void pack_backward_data_weights<T>(const DirectShape&, const T*, T*);
TRAINSIM_DIRECT_PACKING(float)
TRAINSIM_DIRECT_PACKING(double)
#undef TRAINSIM_DIRECT_PACKING

}  // namespace trainsim
