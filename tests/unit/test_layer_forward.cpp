// Forward passes against naive reference loops. (Gradient checks only prove backward is
// consistent with forward; these prove forward computes the right function.)
#include <catch2/catch.hpp>

#include <algorithm>
#include <random>

#include "sim/nn/activation.h"
#include "sim/nn/conv2d.h"
#include "sim/nn/dense.h"
#include "sim/nn/pool.h"
#include "sim/nn/softmax.h"

using namespace trainsim;

namespace {

void randomize(Layer<double>& layer, Tensor<double>& x, std::uint64_t seed) {
  Rng rng(seed);
  InitSpec init;
  init.scheme = "uniform";
  init.scale = 1.0;
  layer.init(init, rng);
  for (Param<double>* p : layer.params())  // biases too: init leaves them at zero
    for (auto& v : p->value.vec()) v = rng.uniform(-1, 1);
  for (auto& v : x.vec()) v = rng.uniform(-1, 1);
}

double at(const Tensor<double>& t, int n, int c, int h, int w) {
  const Shape& s = t.shape();
  return t.sample(n)[(static_cast<std::size_t>(c) * s.h + h) * s.w + w];
}

}  // namespace

TEST_CASE("Conv2d forward equals direct convolution", "[nn]") {
  struct Case {
    Shape in;
    int filters, kernel, stride, pad;
  };
  for (const Case& k :
       {Case{{1, 7, 7}, 2, 5, 1, 2}, Case{{3, 8, 6}, 4, 3, 2, 1}, Case{{2, 5, 9}, 3, 3, 3, 2},
        Case{{2, 4, 4}, 1, 1, 1, 0}, Case{{1, 6, 6}, 2, 4, 1, 3}}) {
    Conv2d<double> conv(k.in, k.filters, k.kernel, k.stride, k.pad, true);
    Tensor<double> x(2, k.in), y;
    randomize(conv, x, 31);
    conv.forward(x, y);
    const auto& w = conv.params()[0]->value;
    const auto& b = conv.params()[1]->value;
    const Shape out = conv.out_shape();
    for (int n = 0; n < 2; ++n)
      for (int f = 0; f < k.filters; ++f)
        for (int oh = 0; oh < out.h; ++oh)
          for (int ow = 0; ow < out.w; ++ow) {
            double ref = b[static_cast<std::size_t>(f)];
            for (int c = 0; c < k.in.c; ++c)
              for (int r = 0; r < k.kernel; ++r)
                for (int s = 0; s < k.kernel; ++s) {
                  const int ih = oh * k.stride + r - k.pad, iw = ow * k.stride + s - k.pad;
                  if (ih < 0 || ih >= k.in.h || iw < 0 || iw >= k.in.w) continue;
                  ref += at(x, n, c, ih, iw) * at(w, f, c, r, s);
                }
            REQUIRE(at(y, n, f, oh, ow) == Approx(ref).margin(1e-12));
          }
  }
}

TEST_CASE("Dense forward equals X W + b", "[nn]") {
  Dense<double> dense(Shape{6, 1, 1}, 4, true);
  Tensor<double> x(3, Shape{6, 1, 1}), y;
  randomize(dense, x, 32);
  dense.forward(x, y);
  const auto& w = dense.params()[0]->value;
  const auto& b = dense.params()[1]->value;
  for (int n = 0; n < 3; ++n)
    for (int o = 0; o < 4; ++o) {
      double ref = b[static_cast<std::size_t>(o)];
      for (int i = 0; i < 6; ++i) ref += x.sample(n)[i] * w.sample(i)[o];
      CHECK(y.sample(n)[o] == Approx(ref).margin(1e-12));
    }
}

TEST_CASE("Pooling forward takes the window max / mean", "[nn]") {
  Tensor<double> x(1, Shape{1, 4, 4}), y;
  x.vec().assign({0.0, 1.0, 2.0, 3.0,     //
                  3.5, -0.5, 0.5, 1.5,    //
                  2.0, 3.0, -1.0, 0.0,    //
                  0.5, 1.5, 2.5, -1.5});  //
  Pool2d<double> maxp(Shape{1, 4, 4}, Pool2d<double>::Mode::kMax, 2, 2);
  maxp.forward(x, y);
  REQUIRE(y.shape() == Shape{1, 2, 2});
  CHECK(y[0] == 3.5);
  CHECK(y[1] == 3.0);
  CHECK(y[2] == 3.0);
  CHECK(y[3] == 2.5);
  Pool2d<double> avgp(Shape{1, 4, 4}, Pool2d<double>::Mode::kAvg, 2, 2);
  avgp.forward(x, y);
  CHECK(y[0] == Approx((0 + 1 + 3.5 - 0.5) / 4));
  CHECK(y[3] == Approx((-1 + 0 + 2.5 - 1.5) / 4));
  // Overlapping windows (kernel 3, stride 1) give a 2x2 output of 3x3 maxima.
  Pool2d<double> overlap(Shape{1, 4, 4}, Pool2d<double>::Mode::kMax, 3, 1);
  overlap.forward(x, y);
  CHECK(y[0] == 3.5);
  CHECK(y[3] == 3.0);
}

TEST_CASE("LeakyReLU, softmax and accuracy counting", "[nn]") {
  Tensor<double> x(1, Shape{4, 1, 1}), y;
  x.vec().assign({-2.0, 0.0, 3.0, -0.5});
  LeakyRelu<double> leaky(Shape{4, 1, 1}, 0.01);
  leaky.forward(x, y);
  CHECK(y[0] == Approx(-0.02));
  CHECK(y[2] == 3.0);
  Softmax<double> soft(Shape{4, 1, 1});
  soft.forward(x, y);
  double sum = 0;
  for (double v : y.vec()) sum += v;
  CHECK(sum == Approx(1.0));
  CHECK(y[2] == Approx(std::exp(3.0) / (std::exp(-2.0) + 1 + std::exp(3.0) + std::exp(-0.5))));
  const std::uint8_t right = 2, wrong = 0;
  CHECK(count_correct(y, &right) == 1);
  CHECK(count_correct(y, &wrong) == 0);
  CHECK(cross_entropy_loss(y, &right) == Approx(-std::log(y[2])));
}

namespace {
// 2x2 / stride-2 max pooling of `in` against a window-by-window reference, forward and backward.
template <typename T>
void check_max_pool_2x2(const Shape& in, int n, unsigned seed) {
  INFO("input " << in.c << "x" << in.h << "x" << in.w << ", batch " << n << ", " << sizeof(T) * 8
                << "-bit");
  Pool2d<T> pool(in, Pool2d<T>::Mode::kMax, 2, 2);
  const int oh_count = in.h / 2, ow_count = in.w / 2;
  Tensor<T> x(n, in), y, dy, dx;
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> level(-2, 2);
  for (T& v : x.vec()) v = static_cast<T>(level(rng));
  pool.forward(x, y);
  REQUIRE(y.shape() == Shape{in.c, oh_count, ow_count});
  dy.resize(n, y.shape());
  for (std::size_t i = 0; i < dy.vec().size(); ++i) dy.vec()[i] = T(1) + static_cast<T>(i);
  // A stale gradient of the right size must be overwritten everywhere, uncovered cells too.
  dx.resize(n, in);
  std::fill(dx.vec().begin(), dx.vec().end(), T(42));
  pool.backward_data(x, y, dy, dx);
  std::vector<T> want(dx.vec().size(), T(0));
  std::size_t wrong_max = 0;
  for (int s = 0; s < n; ++s)
    for (int c = 0; c < in.c; ++c)
      for (int oh = 0; oh < oh_count; ++oh)
        for (int ow = 0; ow < ow_count; ++ow) {
          auto at = [&](int h, int w) {
            return ((static_cast<std::size_t>(s) * in.c + c) * in.h + h) * in.w + w;
          };
          std::size_t best = at(2 * oh, 2 * ow);
          for (int r = 0; r < 2; ++r)
            for (int q = 0; q < 2; ++q)
              if (x.vec()[at(2 * oh + r, 2 * ow + q)] > x.vec()[best])
                best = at(2 * oh + r, 2 * ow + q);
          const std::size_t o =
              ((static_cast<std::size_t>(s) * in.c + c) * oh_count + oh) * ow_count + ow;
          if (y.vec()[o] != x.vec()[best]) ++wrong_max;
          want[best] += dy.vec()[o];
        }
  CHECK(wrong_max == 0);
  CHECK(std::vector<T>(dx.vec().begin(), dx.vec().end()) == want);
}
}  // namespace

TEST_CASE("2x2 max pooling with stride 2 equals the window-by-window reference", "[nn]") {
  // Odd sizes leave a last row and column no window covers; ties (many equal values) test that
  // the gradient goes to the first maximum in (r, s) order. Rows narrower than a vector (run
  // together across rows and planes), as wide as several with a tail, odd and even heights;
  // rows long enough to go a row at a time (32 windows or more), with and without a tail.
  const Shape shapes[] = {{3, 7, 9},  {16, 10, 10}, {6, 28, 28}, {2, 6, 41},
                          {1, 5, 34}, {5, 2, 2},    {2, 6, 71},  {1, 4, 96}};
  unsigned seed = 5;
  for (const Shape& in : shapes) {
    check_max_pool_2x2<float>(in, 2, seed++);
    check_max_pool_2x2<double>(in, 3, seed++);
  }
}
