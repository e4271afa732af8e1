// Every layer's backward-data and backward-weight against central finite differences, in
// double precision. The scalar being differentiated is L = sum(y .* R) for a fixed random R,
// so dL/dy = R exercises every output position with a different weight.
#include <catch2/catch.hpp>
#include <cmath>
#include <functional>

#include "sim/nn/activation.h"
#include "sim/nn/conv2d.h"
#include "sim/nn/dense.h"
#include "sim/nn/network.h"
#include "sim/nn/pool.h"
#include "sim/nn/softmax.h"

#include "tests/support/layer_spec.h"
#include "tests/support/network_yaml.h"

using namespace trainsim;

namespace {

constexpr double kStep = 1e-6;
constexpr double kTolerance = 1e-4;

void fill_uniform(Tensor<double>& t, Rng& rng, double lo = -1, double hi = 1) {
  for (auto& v : t.vec()) v = rng.uniform(lo, hi);
}

double dot(const Tensor<double>& a, const Tensor<double>& b) {
  double s = 0;
  for (std::size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
  return s;
}

/// Element-wise relative error check; reports the worst element.
void require_close(const AlignedVector<double>& analytic, const std::vector<double>& numeric,
                   const std::string& what) {
  REQUIRE(analytic.size() == numeric.size());
  double worst = 0;
  std::size_t worst_i = 0;
  for (std::size_t i = 0; i < analytic.size(); ++i) {
    const double a = analytic[i], n = numeric[i];
    const double rel = std::abs(a - n) / std::max({std::abs(a), std::abs(n), 1e-3});
    if (rel > worst) {
      worst = rel;
      worst_i = i;
    }
  }
  INFO(what << ": worst relative error " << worst << " at element " << worst_i << " (analytic "
            << analytic[worst_i] << ", numeric " << numeric[worst_i] << ")");
  CHECK(worst < kTolerance);
}

/// Central difference of f with respect to every element of `values`.
std::vector<double> numeric_grad(AlignedVector<double>& values, const std::function<double()>& f) {
  std::vector<double> g(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) {
    const double keep = values[i];
    values[i] = keep + kStep;
    const double up = f();
    values[i] = keep - kStep;
    const double down = f();
    values[i] = keep;
    g[i] = (up - down) / (2 * kStep);
  }
  return g;
}

/// Checks backward_data and (if the layer has params) backward_weight of `layer`.
void check_layer(Layer<double>& layer, int batch, std::uint64_t seed, const std::string& name) {
  Rng rng(seed);
  InitSpec init;
  init.scheme = "uniform";
  init.scale = 0.5;
  layer.init(init, rng);
  for (Param<double>* p : layer.params()) fill_uniform(p->value, rng, -0.5, 0.5);
  Tensor<double> x(batch, layer.in_shape()), y, r, dx;
  fill_uniform(x, rng);
  layer.forward(x, y);
  r.resize(y.n(), y.shape());
  fill_uniform(r, rng);
  auto loss = [&] {
    Tensor<double> out;
    layer.forward(x, out);
    return dot(out, r);
  };

  layer.backward_data(x, y, r, dx);
  require_close(dx.vec(), numeric_grad(x.vec(), loss), name + " backward_data");

  for (Param<double>* p : layer.params()) p->grad.set_zero();
  layer.backward_weight(x, r);
  for (Param<double>* p : layer.params())
    require_close(p->grad.vec(), numeric_grad(p->value.vec(), loss),
                  name + " backward_weight " + p->name);
}

}  // namespace

TEST_CASE("Dense gradients match finite differences", "[nn][gradcheck]") {
  Dense<double> with_bias(Shape{7, 1, 1}, 5, true);
  check_layer(with_bias, 3, 1, "dense");
  Dense<double> no_bias(Shape{2, 3, 2}, 4, false);  // un-flattened input is a vector too
  check_layer(no_bias, 2, 2, "dense(no bias)");
}

TEST_CASE("Conv2d gradients match finite differences", "[nn][gradcheck]") {
  SECTION("3x3, stride 1, no padding") {
    Conv2d<double> c(Shape{2, 6, 5}, 3, 3, 1, 0, true);
    check_layer(c, 2, 3, "conv 3x3");
  }
  SECTION("5x5, padding 2 (LeNet conv1 geometry, small)") {
    Conv2d<double> c(Shape{1, 7, 7}, 2, 5, 1, 2, true);
    check_layer(c, 2, 4, "conv 5x5 pad 2");
  }
  SECTION("stride 2 with padding, ragged edge") {
    Conv2d<double> c(Shape{3, 7, 6}, 4, 3, 2, 1, false);
    check_layer(c, 2, 5, "conv stride 2");
  }
  SECTION("1x1 kernel") {
    Conv2d<double> c(Shape{4, 3, 3}, 2, 1, 1, 0, true);
    check_layer(c, 3, 6, "conv 1x1");
  }
  SECTION("2 groups, stride 2, padding 1") {
    Conv2d<double> c(Shape{4, 6, 5}, 6, 3, 2, 1, true, 2);
    check_layer(c, 2, 16, "conv grouped");
  }
}

TEST_CASE("Pooling gradients match finite differences", "[nn][gradcheck]") {
  Pool2d<double> max2(Shape{2, 6, 6}, Pool2d<double>::Mode::kMax, 2, 2);
  check_layer(max2, 2, 7, "maxpool 2/2");
  Pool2d<double> max_overlap(Shape{2, 7, 7}, Pool2d<double>::Mode::kMax, 3, 2);
  check_layer(max_overlap, 2, 8, "maxpool 3/2 overlapping");
  Pool2d<double> avg(Shape{3, 6, 5}, Pool2d<double>::Mode::kAvg, 2, 2);
  check_layer(avg, 2, 9, "avgpool 2/2");
  Pool2d<double> avg_s1(Shape{1, 4, 4}, Pool2d<double>::Mode::kAvg, 2, 1);
  check_layer(avg_s1, 2, 10, "avgpool 2/1");
}

TEST_CASE("Element-wise layer gradients match finite differences", "[nn][gradcheck]") {
  LeakyRelu<double> relu(Shape{3, 4, 2}, 0.0);
  check_layer(relu, 2, 11, "relu");
  LeakyRelu<double> leaky(Shape{10, 1, 1}, 0.01);
  check_layer(leaky, 4, 12, "leaky_relu 0.01");
  Flatten<double> flat(Shape{2, 3, 4});
  check_layer(flat, 2, 13, "flatten");
  Softmax<double> soft(Shape{10, 1, 1});
  check_layer(soft, 3, 14, "softmax");
}

TEST_CASE("Fused softmax cross-entropy gradient is p - onehot", "[nn][gradcheck]") {
  Rng rng(15);
  Softmax<double> soft(Shape{10, 1, 1});
  Tensor<double> logits(4, Shape{10, 1, 1}), probs, grad;
  fill_uniform(logits, rng, -3, 3);
  const std::uint8_t labels[4] = {0, 3, 9, 3};
  soft.forward(logits, probs);
  cross_entropy_grad(probs, labels, grad);
  auto loss = [&] {
    Tensor<double> p;
    soft.forward(logits, p);
    return cross_entropy_loss(p, labels);
  };
  require_close(grad.vec(), numeric_grad(logits.vec(), loss), "softmax+cross-entropy");
}

TEST_CASE("Whole-network backprop matches finite differences of the loss", "[nn][gradcheck]") {
  // Batch normalization's scale and shift start at 1 and 0 whatever the scheme: every
  // parameter is drawn again so that their gradients matter too.
  auto check_network = [](NetworkSpec spec, int batch, std::uint64_t seed) {
    spec.init.scheme = "uniform";
    spec.init.scale = 0.5;
    Network<double> net(spec);
    net.init(seed);
    Rng rng(seed + 100);
    for (Param<double>* p : net.params()) fill_uniform(p->value, rng, -0.5, 0.5);
    ForwardPass<double> pass;
    pass.acts.resize(1);
    pass.acts[0].resize(batch, net.input_shape());
    fill_uniform(pass.acts[0], rng, 0, 1);
    std::vector<std::uint8_t> labels(static_cast<std::size_t>(batch));
    for (auto& l : labels) l = static_cast<std::uint8_t>(rng.below(spec.classes));
    net.forward(pass);
    BackwardScratch<double> scratch;
    net.zero_grad();
    net.backward(pass, labels.data(), scratch);
    auto loss = [&] {
      ForwardPass<double> p;
      p.acts.push_back(pass.acts[0]);
      net.forward(p);
      return cross_entropy_loss(p.probs(), labels.data());
    };
    for (Param<double>* p : net.params())
      require_close(p->grad.vec(), numeric_grad(p->value.vec(), loss), spec.name + " " + p->name);
  };

  NetworkSpec mlp;
  mlp.name = "mini_mlp";
  mlp.input = {1, 4, 4};
  mlp.classes = 5;
  mlp.layers = {test::layer_spec("flatten", "f"), test::layer_spec("dense", "fc1"),
                test::layer_spec("leaky_relu", "a1"), test::layer_spec("dense", "fc2"),
                test::layer_spec("softmax", "out")};
  mlp.layers[1].units = 6;
  mlp.layers[3].units = 5;
  check_network(mlp, 3, 21);

  NetworkSpec cnn;
  cnn.name = "mini_cnn";
  cnn.input = {1, 8, 8};
  cnn.classes = 4;
  cnn.layers = {test::layer_spec("conv2d", "c1"),    test::layer_spec("relu", "r1"),
                test::layer_spec("maxpool2d", "p1"), test::layer_spec("conv2d", "c2"),
                test::layer_spec("avgpool2d", "p2"), test::layer_spec("flatten", "f"),
                test::layer_spec("dense", "fc"),     test::layer_spec("softmax", "out")};
  cnn.layers[0].filters = 3;
  cnn.layers[0].kernel = 3;
  cnn.layers[0].padding = 1;
  cnn.layers[2].kernel = 2;
  cnn.layers[2].stride = 2;
  cnn.layers[3].filters = 4;
  cnn.layers[3].kernel = 3;
  cnn.layers[4].kernel = 2;
  cnn.layers[4].stride = 2;
  cnn.layers[6].units = 4;
  check_network(cnn, 2, 22);

  // A graph with every join and fan-out: the stem is read by three layers (a conv, a
  // batchnorm branch and the concat), an add joins two branches, a concat three tensors of
  // different channels; a branch that ends nowhere (its gradient is zero); dropout at rate 0
  // (its masks: tests/unit/test_graph_network.cpp).
  check_network(test::network_from_yaml(R"(
name: graph
input: [2, 6, 6]
classes: 3
layers:
  - {type: conv2d, name: stem, filters: 3, kernel: 3, padding: 1}
  - {type: conv2d, name: a, filters: 3, kernel: 3, padding: 1}
  - {type: batchnorm, name: bn_a}
  - {type: relu, name: ra}
  - {type: batchnorm, name: bn_s, from: stem}
  - {type: add, name: sum, from: [ra, bn_s]}
  - {type: conv2d, name: dead, filters: 2, kernel: 1, from: stem}
  - {type: conv2d, name: b, filters: 2, kernel: 1, from: sum}
  - {type: concat, name: cat, from: [b, stem, sum]}
  - {type: dropout, name: drop, rate: 0.0}
  - {type: global_avgpool, name: gap}
  - {type: flatten}
  - {type: dense, name: fc, units: 3}
  - {type: softmax}
)"),
                4, 31);
}
