#pragma once
// The packed weight layouts that the direct convolution kernels (sim/nn/kernels/) read and the
// packing functions (sim/nn/direct_conv.cpp, sim/nn/direct_conv_filters.cpp) write.
#include <algorithm>

#include "sim/nn/direct_conv.h"
#include "sim/nn/simd.h"

namespace trainsim::direct_layout {

// The forward kernel computes up to kForwardFilters filters x 2 vectors of positions at once:
// 12 accumulators, 2 input vectors and a broadcast weight fit AVX2's 16 registers (with
// AVX-512, vectors of the whole register).
inline constexpr int kForwardFilters = 6;
// Backward-data handles kDataTaps taps at a time (x 1 or 2 vectors of positions).
inline constexpr int kDataTaps = 6;
// Positions per step of the fixed-width loops: two vectors, kDirectStep floats, half of it in
// doubles; wide() is a multiple of kDirectStep, so one wide() serves both. Backward-data
// keeps this step where a block's taps overlap (sim/nn/kernels/direct_conv.cpp).
inline constexpr int kStepVectors = 2;
static_assert(kStepVectors * simd::kLanes<float> == kDirectStep &&
                  kDirectStep % (kStepVectors * simd::kLanes<double>) == 0,
              "the wide layout holds whole steps of either element type");

// Filters [f0, f0 + fb) of the forward packing: each block of up to kForwardFilters filters
// stores its weights tap-major, the block's filters side by side.
template <typename F>
void for_filter_blocks(int filters, const F& fn) {
  for (int f0 = 0; f0 < filters; f0 += kForwardFilters)
    fn(f0, std::min(kForwardFilters, filters - f0));
}

// Backward-data visits the taps channel-fastest: tap i is (r, s) = i / channels, c = i %
// channels, and returns its index in w's (c, r, s) order. Taps of one block then add into
// different channel planes; taps one column apart would add overlapping vectors one after
// the other, and every load would wait for the store before it (a failed store-to-load
// forward), which made the pass slower than computing the padding's products.
inline int data_tap(const DirectShape& s, int i) {
  const int k2 = s.kernel * s.kernel;
  return i % s.channels * k2 + i / s.channels;
}

// Taps [t0, t0 + tb) of the backward-data packing, each block's taps side by side for every
// filter.
template <typename F>
void for_tap_blocks(int taps, const F& fn) {
  for (int t0 = 0; t0 < taps; t0 += kDataTaps) fn(t0, std::min(kDataTaps, taps - t0));
}

// Vectors of filters in the filter-lane kernels' rows.
template <typename T>
int filter_vectors(const DirectShape& s) {
  return (s.filters + simd::kLanes<T> - 1) / simd::kLanes<T>;
}

}  // namespace trainsim::direct_layout
