#include "sim/nn/pool.h"

#include <algorithm>

#include "sim/core/parallel.h"
#include "sim/nn/simd.h"

namespace trainsim {

namespace {
// Values read per task (see activation.cpp).
constexpr std::int64_t kGrain = 1 << 14;

struct PoolGeometry {
  Shape in, out;
  int kernel, stride;
  std::int64_t in_plane() const { return static_cast<std::int64_t>(in.h) * in.w; }
  std::int64_t out_plane() const { return static_cast<std::int64_t>(out.h) * out.w; }
};

// Runs fn(first, last) on ranges of the batch's channel planes, in parallel.
template <typename F>
void for_planes(const PoolGeometry& g, int batch, const F& fn) {
  parallel_ranges(static_cast<std::int64_t>(batch) * g.in.c, kGrain / g.in_plane() + 1, fn);
}

// One channel plane. Windows are visited tap by tap in (r, s) order with the output row as
// the inner loop: the same arithmetic, in the same order, as one window at a time, but with
// no branch per value, and vectorised when the stride is a compile-time constant
// (kStride > 0; 0 reads it from g).
template <typename T, bool kMax, int kStride>
void pool_plane(const PoolGeometry& g, const T* x, T* y, T* acc) {
  const int stride = kStride > 0 ? kStride : g.stride;
  const int ow_count = g.out.w;
  const T inv_area = T(1) / static_cast<T>(g.kernel * g.kernel);
  for (int oh = 0; oh < g.out.h; ++oh) {
    const T* top = x + static_cast<std::size_t>(oh * stride) * g.in.w;
    for (int ow = 0; ow < ow_count; ++ow) acc[ow] = kMax ? top[ow * stride] : T(0);
    for (int r = 0; r < g.kernel; ++r) {
      for (int s = 0; s < g.kernel; ++s) {
        const T* tap = top + r * g.in.w + s;
        for (int ow = 0; ow < ow_count; ++ow) {
          const T v = tap[ow * stride];
          if (kMax) {
            acc[ow] = v > acc[ow] ? v : acc[ow];
          } else {
            acc[ow] += v;
          }
        }
      }
    }
    T* yrow = y + static_cast<std::size_t>(oh) * ow_count;
    for (int ow = 0; ow < ow_count; ++ow) yrow[ow] = kMax ? acc[ow] : acc[ow] * inv_area;
  }
}

// Max pooling's gradient goes to the first maximum of each window in (r, s) order. kK and
// kStride > 0 fix the window at compile time (fully unrolled); 0 reads them from g.
template <typename T, int kK, int kStride>
void max_pool_grad_plane(const PoolGeometry& g, const T* x, const T* dy, T* dx) {
  const int k = kK > 0 ? kK : g.kernel, stride = kStride > 0 ? kStride : g.stride;
  const int in_w = g.in.w;
  for (int oh = 0; oh < g.out.h; ++oh) {
    const T* top = x + static_cast<std::size_t>(oh * stride) * in_w;
    T* dtop = dx + static_cast<std::size_t>(oh * stride) * in_w;
    const T* grow = dy + static_cast<std::size_t>(oh) * g.out.w;
    for (int ow = 0; ow < g.out.w; ++ow) {
      const T* win = top + ow * stride;
      int best = 0;
      T best_v = win[0];
      for (int r = 0; r < k; ++r) {
        for (int s = 0; s < k; ++s) {
          const T v = win[r * in_w + s];
          const bool better = v > best_v;
          best = better ? r * in_w + s : best;
          best_v = better ? v : best_v;
        }
      }
      dtop[ow * stride + best] += grow[ow];
    }
  }
}

// The 2 x 2 pooling's vectors: the build's widest registers (simd::Wide). A lane is one
// window, and comparisons and selects are exact, so the width changes no bit.
template <typename T>
using PoolVec = simd::Wide<T>;
template <typename T>
constexpr int kPoolLanes = simd::kWideLanes<T>;

// The first maximum of a 2 x 2 window in (r, s) order, a = (0, 0), b = (0, 1), c = (1, 0),
// d = (1, 1): `win_b` etc. say which of b, c, d replaced the running maximum; the window's
// winner is the last that did (a if none). kPoolLanes windows at a time.
template <typename V>
struct Window2x2 {
  using Mask = decltype(V{} > V{});
  V max;
  Mask win_b, win_c, win_d;
};
template <typename V>
Window2x2<V> window_2x2(V a, V b, V c, V d) {
  Window2x2<V> w;
  w.win_b = b > a;
  w.max = simd::select_of(w.win_b, b, a);
  w.win_c = c > w.max;
  w.max = simd::select_of(w.win_c, c, w.max);
  w.win_d = d > w.max;
  w.max = simd::select_of(w.win_d, d, w.max);
  return w;
}

// The common 2 x 2 window with stride 2, forward and backward, one output row (two input rows)
// at a time and kPoolLanes windows per step (sim/nn/simd.h: GCC does not vectorise the
// stride-2 loop on AVX2). The last windows of a row, fewer than kPoolLanes, go through the
// same vector code on copies padded with zeros: one at a time, their data-dependent branches
// cost more than all the rest (LeNet-5's 5-wide second pooling layer has nothing but such
// windows). The windows do not overlap, so the gradient is written, not added: every value of
// a covered input row gets its window's gradient or 0, and only an odd last row or column,
// which no window covers, needs zeroing. The maximum is taken in the general loop's (r, s)
// order, so the results are the general code's bit for bit.
template <typename T>
Window2x2<PoolVec<T>> windows_2x2(const T* r0, const T* r1) {
  using V = PoolVec<T>;
  constexpr int L = kPoolLanes<T>;
  const V t0 = simd::load_as<V>(r0), t1 = simd::load_as<V>(r0 + L);
  const V b0 = simd::load_as<V>(r1), b1 = simd::load_as<V>(r1 + L);
  return window_2x2(simd::even_of(t0, t1), simd::odd_of(t0, t1), simd::even_of(b0, b1),
                    simd::odd_of(b0, b1));
}

// kPoolLanes windows whose top-left values start r0 and r1: their maxima into y.
template <typename T>
void max_2x2_step(const T* r0, const T* r1, T* y) {
  simd::store_as(y, windows_2x2(r0, r1).max);
}

// kPoolLanes windows: gradient g of each to its first maximum, 0 to the other three values.
template <typename T>
void max_2x2_grad_step(const T* r0, const T* r1, const T* g, T* d0, T* d1) {
  using V = PoolVec<T>;
  constexpr int L = kPoolLanes<T>;
  const auto w = windows_2x2(r0, r1);
  const V v = simd::load_as<V>(g), zero = simd::splat_as<V>(T(0));
  // Each lane's gradient goes to its last replacement: d if it won, else c, else b, else a.
  const V gd = simd::select_of(w.win_d, v, zero);
  const V gc = simd::select_of(w.win_c & ~w.win_d, v, zero);
  const V gb = simd::select_of(w.win_b & ~(w.win_c | w.win_d), v, zero);
  const V ga = simd::select_of(w.win_b | w.win_c | w.win_d, zero, v);
  simd::store_as(d0, simd::zip_low_of(ga, gb));
  simd::store_as(d0 + L, simd::zip_high_of(ga, gb));
  simd::store_as(d1, simd::zip_low_of(gc, gd));
  simd::store_as(d1 + L, simd::zip_high_of(gc, gd));
}

// The last `rest` < kPoolLanes windows of a row, as zero-padded copies, and room for the
// results.
template <typename T>
struct Tail2x2 {
  static constexpr int kLanes = kPoolLanes<T>;
  T r0[2 * kLanes] = {}, r1[2 * kLanes] = {}, g[kLanes] = {};
  T d0[2 * kLanes], d1[2 * kLanes], y[kLanes];
  Tail2x2(const T* top, const T* bottom, int rest) {
    std::copy(top, top + 2 * rest, r0);
    std::copy(bottom, bottom + 2 * rest, r1);
  }
};

// Windows per chunk, and the longest rows run together (below).
constexpr int kFlatWindows = 256;
constexpr int kFlatRow = 32;

// The covered values of `rows` pairs of input rows, side by side: top and bottom rows apart.
template <typename T>
void gather_pairs(const T* x, int in_w, int out_w, int rows, T* top, T* bottom) {
  for (int j = 0; j < rows; ++j) {
    const T* r0 = x + static_cast<std::int64_t>(j) * 2 * in_w;
    std::copy(r0, r0 + 2 * out_w, top + 2 * j * out_w);
    std::copy(r0 + in_w, r0 + in_w + 2 * out_w, bottom + 2 * j * out_w);
  }
}

// Forward over `pairs` consecutive pairs of input rows (rows 2j and 2j + 1 of x make output
// row j of y), in_w >= 2 * out_w. Rows of fewer than kFlatRow windows (LeNet-5's two pooling
// layers have 14 and 5) are first copied side by side, so that a chunk of rows makes one flat
// run of windows and the vectors stay full; longer rows go a row at a time, with one short
// step at the end of each.
template <typename T>
void max_pool_2x2_pairs(const T* x, int in_w, int out_w, std::int64_t pairs, T* y) {
  constexpr int kLanes = kPoolLanes<T>;
  if (out_w < kFlatRow) {
    T top[2 * (kFlatWindows + kLanes)] = {}, bottom[2 * (kFlatWindows + kLanes)] = {};
    T out[kFlatWindows + kLanes];
    const std::int64_t chunk = std::max(1, kFlatWindows / out_w);
    for (std::int64_t j0 = 0; j0 < pairs; j0 += chunk) {
      const int rows = static_cast<int>(std::min(chunk, pairs - j0)), windows = rows * out_w;
      gather_pairs(x + j0 * 2 * in_w, in_w, out_w, rows, top, bottom);
      for (int i = 0; i < windows; i += kLanes) max_2x2_step(top + 2 * i, bottom + 2 * i, out + i);
      std::copy(out, out + windows, y + j0 * out_w);
    }
    return;
  }
  for (std::int64_t j = 0; j < pairs; ++j) {
    const T* r0 = x + j * 2 * in_w;
    const T* r1 = r0 + in_w;
    T* yrow = y + j * out_w;
    int ow = 0;
    for (; ow + kLanes <= out_w; ow += kLanes) max_2x2_step(r0 + 2 * ow, r1 + 2 * ow, yrow + ow);
    if (const int rest = out_w - ow; rest > 0) {
      Tail2x2<T> t(r0 + 2 * ow, r1 + 2 * ow, rest);
      max_2x2_step(t.r0, t.r1, t.y);
      std::copy(t.y, t.y + rest, yrow + ow);
    }
  }
}

// Backward over `pairs` pairs of rows, as the forward pass; an odd last column (in_w > 2 out_w)
// gets 0.
template <typename T>
void max_pool_2x2_grad_pairs(const T* x, const T* dy, int in_w, int out_w, std::int64_t pairs,
                             T* dx) {
  constexpr int kLanes = kPoolLanes<T>;
  if (out_w < kFlatRow) {
    T top[2 * (kFlatWindows + kLanes)] = {}, bottom[2 * (kFlatWindows + kLanes)] = {};
    T g[kFlatWindows + kLanes] = {}, d0[2 * (kFlatWindows + kLanes)],
                       d1[2 * (kFlatWindows + kLanes)];
    const std::int64_t chunk = std::max(1, kFlatWindows / out_w);
    for (std::int64_t j0 = 0; j0 < pairs; j0 += chunk) {
      const int rows = static_cast<int>(std::min(chunk, pairs - j0)), windows = rows * out_w;
      gather_pairs(x + j0 * 2 * in_w, in_w, out_w, rows, top, bottom);
      std::copy(dy + j0 * out_w, dy + j0 * out_w + windows, g);
      for (int i = 0; i < windows; i += kLanes)
        max_2x2_grad_step(top + 2 * i, bottom + 2 * i, g + i, d0 + 2 * i, d1 + 2 * i);
      for (int j = 0; j < rows; ++j) {
        T* row = dx + (j0 + j) * 2 * in_w;
        std::copy(d0 + 2 * j * out_w, d0 + 2 * (j + 1) * out_w, row);
        std::copy(d1 + 2 * j * out_w, d1 + 2 * (j + 1) * out_w, row + in_w);
        if (in_w > 2 * out_w) row[in_w - 1] = row[2 * in_w - 1] = T(0);
      }
    }
    return;
  }
  for (std::int64_t j = 0; j < pairs; ++j) {
    const T* r0 = x + j * 2 * in_w;
    const T* r1 = r0 + in_w;
    T* d0 = dx + j * 2 * in_w;
    T* d1 = d0 + in_w;
    const T* grow = dy + j * out_w;
    int ow = 0;
    for (; ow + kLanes <= out_w; ow += kLanes)
      max_2x2_grad_step(r0 + 2 * ow, r1 + 2 * ow, grow + ow, d0 + 2 * ow, d1 + 2 * ow);
    if (const int rest = out_w - ow; rest > 0) {
      Tail2x2<T> t(r0 + 2 * ow, r1 + 2 * ow, rest);
      std::copy(grow + ow, grow + out_w, t.g);
      max_2x2_grad_step(t.r0, t.r1, t.g, t.d0, t.d1);
      std::copy(t.d0, t.d0 + 2 * rest, d0 + 2 * ow);
      std::copy(t.d1, t.d1 + 2 * rest, d1 + 2 * ow);
    }
    if (in_w > 2 * out_w) d0[in_w - 1] = d1[in_w - 1] = T(0);
  }
}

// Planes [first, last) of a 2 x 2 / stride-2 max pooling, forward (dy == nullptr: x to y) or
// backward (x, dy to dx in y's place). With an even height the planes' row pairs follow each
// other with no gap, so the whole range is one run of pairs; an odd last row belongs to no
// window (its gradient is 0) and breaks the run at every plane.
template <typename T>
void max_pool_2x2_planes(const PoolGeometry& g, std::int64_t first, std::int64_t last, const T* x,
                         const T* dy, T* out) {
  const bool even = g.in.h % 2 == 0;
  const std::int64_t runs = even ? 1 : last - first;
  const std::int64_t pairs = even ? (last - first) * g.out.h : g.out.h;
  for (std::int64_t i = 0; i < runs; ++i) {
    const std::int64_t p = first + i;
    const T* xp = x + p * g.in_plane();
    if (dy == nullptr) {
      max_pool_2x2_pairs(xp, g.in.w, g.out.w, pairs, out + p * g.out_plane());
      continue;
    }
    T* dxp = out + p * g.in_plane();
    max_pool_2x2_grad_pairs(xp, dy + p * g.out_plane(), g.in.w, g.out.w, pairs, dxp);
    if (!even) std::fill(dxp + (g.in.h - 1) * g.in.w, dxp + g.in_plane(), T(0));
  }
}

template <typename T>
void avg_pool_grad_plane(const PoolGeometry& g, const T* dy, T* dx) {
  const T inv_area = T(1) / static_cast<T>(g.kernel * g.kernel);
  for (int oh = 0; oh < g.out.h; ++oh) {
    for (int ow = 0; ow < g.out.w; ++ow) {
      T* win = dx + static_cast<std::size_t>(oh * g.stride) * g.in.w + ow * g.stride;
      const T v = dy[oh * g.out.w + ow] * inv_area;
      for (int r = 0; r < g.kernel; ++r)
        for (int s = 0; s < g.kernel; ++s) win[r * g.in.w + s] += v;
    }
  }
}
}  // namespace

template <typename T>
Pool2d<T>::Pool2d(const Shape& in, Mode mode, int kernel, int stride)
    : mode_(mode), kernel_(kernel), stride_(stride) {
  this->in_ = in;
  this->out_ = Shape{in.c, (in.h - kernel) / stride + 1, (in.w - kernel) / stride + 1};
}

template <typename T>
void Pool2d<T>::forward(const Tensor<T>& x, Tensor<T>& y) {
  y.resize(x.n(), this->out_);
  const PoolGeometry g{this->in_, this->out_, kernel_, stride_};
  const bool max = mode_ == Mode::kMax;
  if (max && g.kernel == 2 && g.stride == 2) {
    for_planes(g, x.n(), [&](std::int64_t first, std::int64_t last) {
      max_pool_2x2_planes<T>(g, first, last, x.data(), nullptr, y.data());
    });
    return;
  }
  // The common 2-wide stride gets a vectorised copy of the loops.
  const auto plane = max ? (g.stride == 2 ? &pool_plane<T, true, 2> : &pool_plane<T, true, 0>)
                         : (g.stride == 2 ? &pool_plane<T, false, 2> : &pool_plane<T, false, 0>);
  for_planes(g, x.n(), [&](std::int64_t first, std::int64_t last) {
    std::vector<T> acc(static_cast<std::size_t>(g.out.w));
    for (std::int64_t p = first; p < last; ++p)
      plane(g, x.data() + p * g.in_plane(), y.data() + p * g.out_plane(), acc.data());
  });
}

template <typename T>
void Pool2d<T>::backward_data(const Tensor<T>& x, const Tensor<T>& y, const Tensor<T>& dy,
                              Tensor<T>& dx) {
  dx.resize(dy.n(), this->in_);
  const PoolGeometry g{this->in_, this->out_, kernel_, stride_};
  const bool max = mode_ == Mode::kMax;
  if (max && g.kernel == 2 && g.stride == 2) {
    for_planes(g, dy.n(), [&](std::int64_t first, std::int64_t last) {
      max_pool_2x2_planes(g, first, last, x.data(), dy.data(), dx.data());
    });
    return;
  }
  const auto max_plane = &max_pool_grad_plane<T, 0, 0>;
  for_planes(g, dy.n(), [&](std::int64_t first, std::int64_t last) {
    std::fill(dx.data() + first * g.in_plane(), dx.data() + last * g.in_plane(), T(0));
    for (std::int64_t p = first; p < last; ++p) {
      T* dxp = dx.data() + p * g.in_plane();
      const T* dyp = dy.data() + p * g.out_plane();
      if (max) {
        max_plane(g, x.data() + p * g.in_plane(), dyp, dxp);
      } else {
        avg_pool_grad_plane(g, dyp, dxp);
      }
    }
  });
}

template class Pool2d<float>;
template class Pool2d<double>;

}  // namespace trainsim
