// Conv2d runs each pass as blocks of samples (one GEMM per block and group, in parallel).
// Here its forward, backward-data and backward-weight are checked against a plain
// per-sample, per-tap reference in double on random shapes (stride, padding, groups, odd
// sizes, batches that make one block, several, and more blocks than reduction tasks), and
// the results must be the same bytes on 1, 2 and 3 threads.
#include <catch2/catch.hpp>
#include <cstring>

#include "sim/core/parallel.h"
#include "sim/nn/conv2d.h"
#include "sim/nn/dense.h"
#include "sim/nn/kernels.h"

using namespace trainsim;

namespace {

struct ConvCase {
  int batch, channels, height, width, filters, kernel, stride, padding, groups;
};

std::string describe(const ConvCase& c) {
  return "batch " + std::to_string(c.batch) + ", in " + std::to_string(c.channels) + "x" +
         std::to_string(c.height) + "x" + std::to_string(c.width) + ", " +
         std::to_string(c.filters) + " filters " + std::to_string(c.kernel) + "x" +
         std::to_string(c.kernel) + " stride " + std::to_string(c.stride) + " pad " +
         std::to_string(c.padding) + " groups " + std::to_string(c.groups);
}

/// The three passes by definition, one sample and one tap at a time, in double.
struct Reference {
  std::vector<double> y, dx, dw, db;
};
Reference reference(const ConvCase& c, const Shape& out, const std::vector<double>& x,
                    const std::vector<double>& w, const std::vector<double>& b,
                    const std::vector<double>& dy) {
  Reference r;
  const int cg = c.channels / c.groups, fg = c.filters / c.groups, k = c.kernel;
  r.y.assign(static_cast<std::size_t>(c.batch) * out.size(), 0);
  r.dx.assign(static_cast<std::size_t>(c.batch) * c.channels * c.height * c.width, 0);
  r.dw.assign(w.size(), 0);
  r.db.assign(b.size(), 0);
  auto xi = [&](int n, int ch, int h, int wd) {
    return ((static_cast<std::size_t>(n) * c.channels + ch) * c.height + h) * c.width + wd;
  };
  auto yi = [&](int n, int f, int oh, int ow) {
    return ((static_cast<std::size_t>(n) * c.filters + f) * out.h + oh) * out.w + ow;
  };
  auto wi = [&](int f, int ch, int i, int j) {
    return ((static_cast<std::size_t>(f) * cg + ch) * k + i) * k + j;
  };
  for (int n = 0; n < c.batch; ++n)
    for (int f = 0; f < c.filters; ++f)
      for (int oh = 0; oh < out.h; ++oh)
        for (int ow = 0; ow < out.w; ++ow) {
          const int g = f / fg;
          const double grad = dy[yi(n, f, oh, ow)];
          double acc = b[static_cast<std::size_t>(f)];
          r.db[static_cast<std::size_t>(f)] += grad;
          for (int ch = 0; ch < cg; ++ch)
            for (int i = 0; i < k; ++i)
              for (int j = 0; j < k; ++j) {
                const int ih = oh * c.stride + i - c.padding, iw = ow * c.stride + j - c.padding;
                if (ih < 0 || ih >= c.height || iw < 0 || iw >= c.width) continue;
                const std::size_t xa = xi(n, g * cg + ch, ih, iw), wa = wi(f, ch, i, j);
                acc += x[xa] * w[wa];
                r.dx[xa] += grad * w[wa];
                r.dw[wa] += grad * x[xa];
              }
          r.y[yi(n, f, oh, ow)] = acc;
        }
  return r;
}

/// max |a - ref| / max |ref|: the error relative to the tensor's scale.
template <typename V>
double relative_error(const V& a, const std::vector<double>& ref) {
  REQUIRE(static_cast<std::size_t>(a.size()) == ref.size());
  double err = 0, scale = 1e-30;
  for (std::size_t i = 0; i < ref.size(); ++i) {
    err = std::max(err, std::abs(static_cast<double>(a[i]) - ref[i]));
    scale = std::max(scale, std::abs(ref[i]));
  }
  return err / scale;
}

template <typename T>
struct Outputs {
  Tensor<T> y, dx;
  AlignedVector<T> dw, db;
};

template <typename T>
Outputs<T> run_layer(const ConvCase& c, int threads, const std::vector<double>& x,
                     const std::vector<double>& w, const std::vector<double>& b,
                     const std::vector<double>& dy) {
  ThreadPool pool(threads);
  const ParallelScope scope(&pool);
  Conv2d<T> conv(Shape{c.channels, c.height, c.width}, c.filters, c.kernel, c.stride, c.padding,
                 true, c.groups);
  auto params = conv.params();
  for (std::size_t i = 0; i < w.size(); ++i) params[0]->value[i] = static_cast<T>(w[i]);
  for (std::size_t i = 0; i < b.size(); ++i) params[1]->value[i] = static_cast<T>(b[i]);
  Tensor<T> xt(c.batch, conv.in_shape()), dyt(c.batch, conv.out_shape());
  for (std::size_t i = 0; i < x.size(); ++i) xt[i] = static_cast<T>(x[i]);
  for (std::size_t i = 0; i < dy.size(); ++i) dyt[i] = static_cast<T>(dy[i]);
  Outputs<T> o;
  conv.forward(xt, o.y);
  conv.backward_data(xt, o.y, dyt, o.dx);
  for (Param<T>* p : params) p->grad.set_zero();
  conv.backward_weight(xt, dyt);
  o.dw = params[0]->grad.vec();
  o.db = params[1]->grad.vec();
  return o;
}

template <typename V>
bool same_bytes(const V& a, const V& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), sizeof(a[0]) * a.size()) == 0;
}

void check_case(const ConvCase& c, std::uint64_t seed) {
  INFO(describe(c));
  const Conv2d<double> shape_only(Shape{c.channels, c.height, c.width}, c.filters, c.kernel,
                                  c.stride, c.padding, true, c.groups);
  const Shape out = shape_only.out_shape();
  Rng rng(seed);
  // Float-representable values, so the reference sees exactly what the float layer sees.
  auto draw = [&](std::size_t n) {
    std::vector<double> v(n);
    for (auto& e : v) e = static_cast<float>(rng.uniform(-1, 1));
    return v;
  };
  const auto x = draw(static_cast<std::size_t>(c.batch) * c.channels * c.height * c.width);
  const auto w =
      draw(static_cast<std::size_t>(c.filters) * (c.channels / c.groups) * c.kernel * c.kernel);
  const auto b = draw(static_cast<std::size_t>(c.filters));
  const auto dy = draw(static_cast<std::size_t>(c.batch) * out.size());
  const Reference ref = reference(c, out, x, w, b, dy);

  const Outputs<double> d = run_layer<double>(c, 2, x, w, b, dy);
  CHECK(relative_error(d.y.vec(), ref.y) < 1e-12);
  CHECK(relative_error(d.dx.vec(), ref.dx) < 1e-12);
  CHECK(relative_error(d.dw, ref.dw) < 1e-12);
  CHECK(relative_error(d.db, ref.db) < 1e-12);

  const Outputs<float> f1 = run_layer<float>(c, 1, x, w, b, dy);
  CHECK(relative_error(f1.y.vec(), ref.y) < 1e-5);
  CHECK(relative_error(f1.dx.vec(), ref.dx) < 1e-5);
  CHECK(relative_error(f1.dw, ref.dw) < 1e-5);
  CHECK(relative_error(f1.db, ref.db) < 1e-5);
  for (int threads : {2, 3}) {
    INFO(threads << " threads against 1");
    const Outputs<float> ft = run_layer<float>(c, threads, x, w, b, dy);
    CHECK(same_bytes(ft.y.vec(), f1.y.vec()));
    CHECK(same_bytes(ft.dx.vec(), f1.dx.vec()));
    CHECK(same_bytes(ft.dw, f1.dw));
    CHECK(same_bytes(ft.db, f1.db));
  }
}

}  // namespace

TEST_CASE("Batched Conv2d passes equal the per-sample reference on chosen shapes", "[nn][conv]") {
  const ConvCase cases[] = {
      {5, 1, 28, 28, 6, 5, 1, 2, 1},    // LeNet-5 conv1, several blocks
      {9, 6, 14, 14, 16, 5, 1, 0, 1},   // LeNet-5 conv2
      {3, 2, 7, 6, 4, 3, 2, 1, 1},      // stride 2, ragged edge, one block
      {4, 6, 9, 11, 6, 3, 1, 1, 3},     // grouped
      {3, 4, 8, 8, 4, 3, 1, 1, 4},      // depthwise
      {2, 3, 5, 9, 3, 3, 3, 2, 1},      // stride 3, padding 2
      {11, 16, 24, 24, 8, 5, 1, 2, 2},  // one sample per block, more blocks than tasks
      {7, 4, 13, 13, 8, 1, 1, 0, 2},    // 1x1, grouped
      // Enough filters for the direct kernels' filter lanes (sim/nn/direct_conv_filters.cpp):
      {4, 3, 9, 9, 8, 3, 1, 1, 1},    // one vector of filters (float)
      {3, 4, 8, 11, 20, 3, 1, 1, 1},  // two vectors, then one, the last partly used
      {5, 4, 7, 7, 24, 5, 1, 2, 2},   // grouped, 12 filters a group
      {2, 2, 6, 6, 10, 7, 1, 3, 1},   // kernel 7, padding 3
      {3, 2, 5, 4, 16, 2, 1, 0, 1},   // kernel 2, tiny planes
      // A block's samples in one call of the filter-lane kernels (SampleRun): one pixel a
      // sample, as VGG's last layers have; and gradients too large for one call per block.
      {6, 8, 1, 1, 16, 3, 1, 1, 1},
      {24, 2, 40, 40, 16, 3, 1, 1, 1},
      {40, 2, 24, 24, 16, 3, 1, 1, 1},  // blocks of 5 samples in calls of 3, then 2
  };
  std::uint64_t seed = 100;
  for (const ConvCase& c : cases) check_case(c, ++seed);
}

TEST_CASE("Batched Conv2d passes equal the per-sample reference on random shapes", "[nn][conv]") {
  Rng rng(2024);
  auto pick = [&](int lo, int hi) { return lo + static_cast<int>(rng.below(hi - lo + 1)); };
  for (int i = 0; i < 24; ++i) {
    ConvCase c;
    c.groups = pick(1, 3);
    c.channels = c.groups * pick(1, 4);
    c.filters = c.groups * pick(1, 4);
    c.kernel = pick(1, 5);
    c.stride = pick(1, 3);
    c.padding = pick(0, c.kernel - 1);
    c.height = pick(std::max(1, c.kernel - 2 * c.padding), 17);
    c.width = pick(std::max(1, c.kernel - 2 * c.padding), 17);
    c.batch = pick(1, 13);
    check_case(c, 500 + static_cast<std::uint64_t>(i));
  }
}

TEST_CASE("The direct forward kernels give the same bits with pixels or filters in the lanes",
          "[nn][conv]") {
  // Both compute each output as one chain of multiply-adds over the taps in (c, r, s) order,
  // so which of them a layer uses (by shape) cannot change a result.
  Rng rng(77);
  const DirectShape shapes[] = {
      {6, 16, 5, 14, 14}, {1, 8, 5, 32, 32}, {3, 20, 3, 9, 12}, {2, 9, 7, 10, 8}};
  for (const DirectShape& s : shapes) {
    INFO(s.channels << " channels, " << s.filters << " filters, kernel " << s.kernel << ", "
                    << s.rows << " x " << s.pitch);
    const int taps = s.channels * s.kernel * s.kernel;
    const int pixels = s.out_rows() * s.out_cols();
    std::vector<float> w(static_cast<std::size_t>(s.filters) * taps), bias(s.filters);
    std::vector<float> x(static_cast<std::size_t>(s.channels * s.plane() + s.slack()));
    for (auto* v : {&w, &bias, &x})
      for (float& e : *v) e = static_cast<float>(rng.uniform(-1, 1));
    std::vector<float> packed(static_cast<std::size_t>(packed_size(s)));
    std::vector<float> wide(static_cast<std::size_t>(s.filters * s.wide()));
    pack_forward_weights(s, w.data(), packed.data());
    kernels<float>().direct_forward(s, packed.data(), x.data(), wide.data());
    std::vector<float> lanes(static_cast<std::size_t>(taps * filter_lanes_width<float>(s)));
    std::vector<float> y(static_cast<std::size_t>(s.filters * pixels));
    pack_filter_lanes(s, w.data(), lanes.data());
    kernels<float>().direct_forward_filters(s, lanes.data(), x.data(), bias.data(), SampleRun{},
                                            y.data());
    int differ = 0;
    for (int f = 0; f < s.filters; ++f)
      for (int p = 0; p < pixels; ++p) {
        const float a = wide[static_cast<std::size_t>(f * s.wide() + p / s.out_cols() * s.pitch +
                                                      p % s.out_cols())] +
                        bias[static_cast<std::size_t>(f)];
        const float b = y[static_cast<std::size_t>(f * pixels + p)];
        if (std::memcmp(&a, &b, sizeof a) != 0) ++differ;
      }
    CHECK(differ == 0);
  }
}

TEST_CASE("Dense passes cut into ranges are the same bytes on any thread count", "[nn]") {
  // 64 x 300 -> 200: every pass is cut into several ranges (rows for the forward pass and
  // backward-data, rows of dW for backward-weight).
  const Shape in{300, 1, 1};
  auto run = [&](int threads) {
    ThreadPool pool(threads);
    const ParallelScope scope(&pool);
    Dense<float> dense(in, 200, true);
    Rng rng(7);
    InitSpec init;
    dense.init(init, rng);
    Tensor<float> x(64, in), y, dy(64, Shape{200, 1, 1}), dx;
    for (auto& v : x.vec()) v = static_cast<float>(rng.uniform(-1, 1));
    for (auto& v : dy.vec()) v = static_cast<float>(rng.uniform(-1, 1));
    dense.forward(x, y);
    dense.backward_data(x, y, dy, dx);
    for (Param<float>* p : dense.params()) p->grad.set_zero();
    dense.backward_weight(x, dy);
    std::vector<AlignedVector<float>> all{y.vec(), dx.vec()};
    for (Param<float>* p : dense.params()) all.push_back(p->grad.vec());
    // And the forward pass is X W + b.
    const auto& w = dense.params()[0]->value;
    const auto& b = dense.params()[1]->value;
    double err = 0;
    for (int n = 0; n < 64; ++n)
      for (int o = 0; o < 200; ++o) {
        double ref = b[static_cast<std::size_t>(o)];
        for (int i = 0; i < 300; ++i) ref += static_cast<double>(x.sample(n)[i]) * w.sample(i)[o];
        err = std::max(err, std::abs(ref - y.sample(n)[o]));
      }
    CHECK(err < 1e-4);
    return all;
  };
  const auto one = run(1);
  for (int threads : {2, 3}) {
    const auto many = run(threads);
    REQUIRE(many.size() == one.size());
    for (std::size_t i = 0; i < one.size(); ++i) CHECK(same_bytes(many[i], one[i]));
  }
}
