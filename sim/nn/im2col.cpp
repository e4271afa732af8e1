#include "sim/nn/im2col.h"

#include <algorithm>
#include <cstring>

namespace trainsim {

namespace {
// Copies `n` values as chunks of kBytes, the last one overlapping its predecessor instead of a
// scalar tail: a fixed-size copy compiles to one vector move.
template <int kBytes, typename T>
inline void copy_chunks(const T* src, T* dst, int n) {
  constexpr int kChunk = kBytes / static_cast<int>(sizeof(T));
  int i = 0;
  for (; i + kChunk <= n; i += kChunk) std::memcpy(dst + i, src + i, kBytes);
  if (i < n) std::memcpy(dst + n - kChunk, src + n - kChunk, kBytes);
}

// Copies a row of n values (a few dozen: an output row). The rows are too short for a
// vectorised loop's set-up and tail to pay, so: 64-byte chunks for rows of at least 64 bytes,
// 32-byte ones for rows of 32 to 63, single values below.
template <typename T>
inline void copy_row(const T* src, T* dst, int n) {
  const auto bytes = static_cast<std::size_t>(n) * sizeof(T);
  if (bytes >= 64) {
    copy_chunks<64>(src, dst, n);
  } else if (bytes >= 32) {
    copy_chunks<32>(src, dst, n);
  } else {
    for (int i = 0; i < n; ++i) dst[i] = src[i];
  }
}
}  // namespace

template <typename T>
void pad_samples(const ConvGeometry& g, const T* x, int samples, T* xpad) {
  const int ph = g.padded_h(), pw = g.padded_w(), p = g.padding;
  const std::int64_t planes = static_cast<std::int64_t>(samples) * g.in.c;
  for (std::int64_t plane = 0; plane < planes; ++plane) {
    const T* src = x + plane * g.in.h * g.in.w;
    T* dst = xpad + plane * ph * pw;
    std::fill(dst, dst + static_cast<std::ptrdiff_t>(p) * pw, T(0));
    for (int h = 0; h < g.in.h; ++h) {
      T* row = dst + static_cast<std::ptrdiff_t>(h + p) * pw;
      for (int w = 0; w < p; ++w) row[w] = T(0);
      for (int w = 0; w < g.in.w; ++w) row[p + w] = src[h * g.in.w + w];
      for (int w = p + g.in.w; w < pw; ++w) row[w] = T(0);
    }
    std::fill(dst + static_cast<std::ptrdiff_t>(p + g.in.h) * pw, dst + ph * pw, T(0));
  }
}

template <typename T>
void crop_samples(const ConvGeometry& g, const T* dxpad, int samples, T* dx) {
  const int ph = g.padded_h(), pw = g.padded_w(), p = g.padding;
  const std::int64_t planes = static_cast<std::int64_t>(samples) * g.in.c;
  for (std::int64_t plane = 0; plane < planes; ++plane) {
    const T* src = dxpad + plane * ph * pw;
    T* dst = dx + plane * g.in.h * g.in.w;
    for (int h = 0; h < g.in.h; ++h)
      for (int w = 0; w < g.in.w; ++w)
        dst[h * g.in.w + w] = src[static_cast<std::ptrdiff_t>(h + p) * pw + p + w];
  }
}

template <typename T>
void im2col(const ConvGeometry& g, const T* xpad, int samples, int c0, int channels, T* cols) {
  const int ho = g.out_h, wo = g.out_w, k = g.kernel, stride = g.stride, pw = g.padded_w();
  const std::int64_t plane = static_cast<std::int64_t>(g.padded_h()) * pw;
  const std::int64_t sample = g.padded_size();
  T* dst = cols;
  for (int c = c0; c < c0 + channels; ++c) {
    for (int r = 0; r < k; ++r) {
      for (int s = 0; s < k; ++s) {
        for (int n = 0; n < samples; ++n) {
          const T* tap = xpad + n * sample + c * plane + static_cast<std::ptrdiff_t>(r) * pw + s;
          for (int oh = 0; oh < ho; ++oh, dst += wo) {
            const T* row = tap + static_cast<std::ptrdiff_t>(oh) * stride * pw;
            if (stride == 1) {
              copy_row(row, dst, wo);
            } else {
              for (int ow = 0; ow < wo; ++ow) dst[ow] = row[ow * stride];
            }
          }
        }
      }
    }
  }
}

template <typename T>
void col2im(const ConvGeometry& g, const T* dcols, int samples, int c0, int channels, T* dxpad) {
  const int ho = g.out_h, wo = g.out_w, k = g.kernel, stride = g.stride, pw = g.padded_w();
  const std::int64_t plane = static_cast<std::int64_t>(g.padded_h()) * pw;
  const std::int64_t sample = g.padded_size();
  const T* src = dcols;
  for (int c = c0; c < c0 + channels; ++c) {
    for (int r = 0; r < k; ++r) {
      for (int s = 0; s < k; ++s) {
        for (int n = 0; n < samples; ++n) {
          T* tap = dxpad + n * sample + c * plane + static_cast<std::ptrdiff_t>(r) * pw + s;
          for (int oh = 0; oh < ho; ++oh, src += wo) {
            T* row = tap + static_cast<std::ptrdiff_t>(oh) * stride * pw;
            if (stride == 1) {
              for (int ow = 0; ow < wo; ++ow) row[ow] += src[ow];
            } else {
              for (int ow = 0; ow < wo; ++ow) row[ow * stride] += src[ow];
            }
          }
        }
      }
    }
  }
}

#define TRAINSIM_IM2COL(T)                                                   \
  template void pad_samples<T>(const ConvGeometry&, const T*, int, T*);      \
  template void crop_samples<T>(const ConvGeometry&, const T*, int, T*);     \
  template void im2col<T>(const ConvGeometry&, const T*, int, int, int, T*); \
  template void col2im<T>(const ConvGeometry&, const T*, int, int, int, T*);
TRAINSIM_IM2COL(float)
TRAINSIM_IM2COL(double)
#undef TRAINSIM_IM2COL

}  // namespace trainsim
