#include "sim/nn/pool.h"

#include "sim/core/parallel.h"

namespace trainsim {

namespace {
// Values read per task (see activation.cpp).
constexpr std::int64_t kGrain = 1 << 15;

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

// The common 2 x 2 window with stride 2, forward and backward, one output row (two input rows)
// at a time. The windows do not overlap, so the gradient is written, not added: every value of
// a covered input row gets its window's gradient or 0, and only an odd last row or column, which
// no window covers, needs zeroing. The maximum is taken in the general loop's (r, s) order, so
// the results are the general code's bit for bit.
template <typename T>
void max_pool_2x2_plane(const PoolGeometry& g, const T* x, T* y) {
  const int in_w = g.in.w, ow_count = g.out.w;
  for (int oh = 0; oh < g.out.h; ++oh) {
    const T* r0 = x + static_cast<std::size_t>(2 * oh) * in_w;
    const T* r1 = r0 + in_w;
    T* yrow = y + static_cast<std::size_t>(oh) * ow_count;
    for (int ow = 0; ow < ow_count; ++ow) {
      T acc = r0[2 * ow];
      acc = r0[2 * ow + 1] > acc ? r0[2 * ow + 1] : acc;
      acc = r1[2 * ow] > acc ? r1[2 * ow] : acc;
      acc = r1[2 * ow + 1] > acc ? r1[2 * ow + 1] : acc;
      yrow[ow] = acc;
    }
  }
}

template <typename T>
void max_pool_2x2_grad_plane(const PoolGeometry& g, const T* x, const T* dy, T* dx) {
  const int in_w = g.in.w, ow_count = g.out.w;
  for (int oh = 0; oh < g.out.h; ++oh) {
    const T* r0 = x + static_cast<std::size_t>(2 * oh) * in_w;
    const T* r1 = r0 + in_w;
    T* d0 = dx + static_cast<std::size_t>(2 * oh) * in_w;
    T* d1 = d0 + in_w;
    const T* grow = dy + static_cast<std::size_t>(oh) * ow_count;
    for (int ow = 0; ow < ow_count; ++ow) {
      // The first maximum in (r, s) order: 0 = (0, 0), 1 = (0, 1), 2 = (1, 0), 3 = (1, 1),
      // without branches (the winner is data-dependent and unpredictable).
      const T a = r0[2 * ow], b = r0[2 * ow + 1], c = r1[2 * ow], d = r1[2 * ow + 1];
      T best_v = a;
      int best = 0;
      bool better = b > best_v;
      best = better ? 1 : best;
      best_v = better ? b : best_v;
      better = c > best_v;
      best = better ? 2 : best;
      best_v = better ? c : best_v;
      best = d > best_v ? 3 : best;
      const T v = grow[ow];
      d0[2 * ow] = best == 0 ? v : T(0);
      d0[2 * ow + 1] = best == 1 ? v : T(0);
      d1[2 * ow] = best == 2 ? v : T(0);
      d1[2 * ow + 1] = best == 3 ? v : T(0);
    }
    if (in_w > 2 * ow_count) d0[in_w - 1] = d1[in_w - 1] = T(0);
  }
  for (int h = 2 * g.out.h; h < g.in.h; ++h)
    std::fill(dx + static_cast<std::size_t>(h) * in_w, dx + static_cast<std::size_t>(h + 1) * in_w,
              T(0));
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
      for (std::int64_t p = first; p < last; ++p)
        max_pool_2x2_plane(g, x.data() + p * g.in_plane(), y.data() + p * g.out_plane());
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
      for (std::int64_t p = first; p < last; ++p)
        max_pool_2x2_grad_plane(g, x.data() + p * g.in_plane(), dy.data() + p * g.out_plane(),
                                dx.data() + p * g.in_plane());
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
