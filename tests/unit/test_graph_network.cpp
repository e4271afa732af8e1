// The numerics of graph networks (sim/nn/network.cpp, sim/nn/layer_graph.h) and of the layers
// that make them (add, concat, batchnorm, global_avgpool, dropout): the step order the timing
// follows, dropout's masks, batch normalization's modes, and the errors a graph that cannot
// work gets. Gradients through fan-out and joins against finite differences:
// tests/unit/test_gradcheck.cpp.
#include <catch2/catch.hpp>

#include <cmath>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "sim/core/error.h"
#include "sim/core/parallel.h"
#include "sim/core/state_archive.h"
#include "sim/core/thread_pool.h"
#include "sim/nn/batchnorm.h"
#include "sim/nn/dropout.h"
#include "sim/nn/network.h"
#include "sim/nn/pass_observer.h"
#include "sim/nn/softmax.h"
#include "sim/workload/net_shape.h"
#include "sim/workload/step_order.h"
#include "tests/support/network_yaml.h"

using namespace trainsim;
using test::network_from_yaml;

namespace {

struct Recorder : PassObserver {
  std::vector<StepEvent> events;
  void on_forward(std::size_t l, int) override { events.push_back({LayerOpSlot::kForward, l}); }
  void on_loss_grad(std::size_t l, int) override { events.push_back({LayerOpSlot::kLossGrad, l}); }
  void on_backward_data(std::size_t l, int) override {
    events.push_back({LayerOpSlot::kBackwardData, l});
  }
  void on_backward_weight(std::size_t l, int) override {
    events.push_back({LayerOpSlot::kBackwardWeight, l});
  }
  void on_grad_sum(std::size_t l, int) override { events.push_back({LayerOpSlot::kGradSum, l}); }
  void on_update(std::size_t, int) override {}
  void on_batch_end(Phase, int) override {}
};

template <typename T>
void fill_uniform(Tensor<T>& t, Rng& rng, double lo, double hi) {
  for (auto& v : t.vec()) v = static_cast<T>(rng.uniform(lo, hi));
}

}  // namespace

TEST_CASE("The numerics issue a graph's passes in the order its timing follows", "[nn][graph]") {
  // Every trainable member of the zoo (the graph networks; VGG-11 is a chain with batchnorm).
  const std::map<std::string, int> grad_sums = {{"resnet8_fashion", 3},
                                                {"resnet20_fashion", 9},
                                                {"vgg11_fashion", 0},
                                                {"mobilenetv2_w05_fashion", 14},
                                                {"densenet40_fashion", 18}};
  for (const auto& [file, expected_sums] : grad_sums) {
    INFO(file);
    const NetworkSpec spec =
        load_network(TRAINSIM_SOURCE_DIR "/configs/networks/" + file + ".yaml");
    Network<float> net(spec);
    net.init(1);
    const NetShape shape(spec);
    // The same layers need gradients in both.
    for (std::size_t l = 0; l < net.size(); ++l) {
      CHECK(net.has_params(l) == shape.has_params(l));
      CHECK(net.needs_input_grad(l) == shape.needs_input_grad(l));
      CHECK(net.layer(l).out_shape() == shape.layer(l).out);
    }
    CHECK(net.param_count() == shape.param_count());
    Recorder rec;
    net.set_observer(&rec);
    ForwardPass<float> pass;
    pass.acts.resize(1);
    pass.acts[0].resize(2, net.input_shape());
    Rng rng(3);
    fill_uniform(pass.acts[0], rng, 0, 1);
    net.forward(pass);
    const std::vector<std::uint8_t> labels = {1, 7};
    BackwardScratch<float> scratch;
    net.backward(pass, labels.data(), scratch);
    std::vector<StepEvent> expected = forward_events(shape);
    for (const StepEvent& e : backward_events(shape)) expected.push_back(e);
    REQUIRE(rec.events.size() == expected.size());
    int sums = 0;
    for (std::size_t i = 0; i < expected.size(); ++i) {
      INFO("event " << i);
      CHECK(rec.events[i].slot == expected[i].slot);
      CHECK(rec.events[i].layer == expected[i].layer);
      sums += expected[i].slot == LayerOpSlot::kGradSum;
    }
    // ResNet: every block's input is read by its first conv and by the add (or the shortcut);
    // MobileNetV2: the input of every block with a shortcut; DenseNet: every dense layer's
    // input (its first batchnorm and the concat).
    CHECK(sums == expected_sums);
  }
}

TEST_CASE("Dropout drops at its rate, scales the rest and routes the gradient by the same mask",
          "[nn][graph]") {
  const Shape shape{4, 16, 16};
  Dropout<float> drop(shape, 0.25);
  Rng seed(5);
  drop.init(InitSpec{}, seed);
  Tensor<float> x(8, shape), y, saved, dy(8, shape), dx;
  Rng rng(6);
  fill_uniform(x, rng, 0.5, 1.5);  // no zeros: a zero output is a dropped value
  fill_uniform(dy, rng, -1, 1);
  drop.forward_graph({&x}, y, saved);
  std::size_t dropped = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (y[i] == 0) {
      ++dropped;
    } else {
      CHECK(y[i] == x[i] * (1.0F / 0.75F));
    }
  }
  // 8,192 values: the fraction is 0.25 within 5 standard deviations (0.024).
  const double fraction = static_cast<double>(dropped) / static_cast<double>(x.size());
  CHECK(std::abs(fraction - 0.25) < 0.024);
  drop.backward_data_graph({&x}, y, saved, dy, 0, dx);
  for (std::size_t i = 0; i < x.size(); ++i)
    CHECK(dx[i] == (y[i] == 0 ? 0.0F : dy[i] * (1.0F / 0.75F)));

  // Evaluation passes values and gradients through.
  drop.set_training(false);
  Tensor<float> ye, se, dxe;
  drop.forward_graph({&x}, ye, se);
  CHECK(ye.vec() == x.vec());
  drop.backward_data_graph({&x}, ye, se, dy, 0, dxe);
  CHECK(dxe.vec() == dy.vec());
}

TEST_CASE("Dropout's masks do not depend on the threads and go on the same after a checkpoint",
          "[nn][graph]") {
  const Shape shape{3, 9, 9};
  Tensor<float> x(5, shape);
  Rng rng(8);
  fill_uniform(x, rng, 0.5, 1.5);
  auto masks = [&](int threads, int count) {
    ThreadPool pool(threads);
    const ParallelScope scope(&pool);
    Dropout<float> drop(shape, 0.5);
    Rng seed(9);
    drop.init(InitSpec{}, seed);
    std::vector<std::vector<float>> out;
    Tensor<float> y, saved;
    for (int i = 0; i < count; ++i) {
      drop.forward_graph({&x}, y, saved);
      out.emplace_back(saved.vec().begin(), saved.vec().end());
    }
    return out;
  };
  const auto one = masks(1, 3);
  CHECK(one == masks(2, 3));
  CHECK(one[0] != one[1]);  // a new mask every pass

  // Saved after the first pass and restored into a fresh layer: the next masks are the same.
  Dropout<float> a(shape, 0.5), b(shape, 0.5);
  Rng seed(9), other(10);
  a.init(InitSpec{}, seed);
  b.init(InitSpec{}, other);
  Tensor<float> y, saved;
  a.forward_graph({&x}, y, saved);
  StateWriter out;
  a.archive_state(out);
  StateReader in(out.data(), "dropout state");
  b.archive_state(in);
  CHECK(in.at_end());
  Tensor<float> ya, sa, yb, sb;
  a.forward_graph({&x}, ya, sa);
  b.forward_graph({&x}, yb, sb);
  CHECK(sa.vec() == sb.vec());
}

TEST_CASE("Batch normalization keeps running statistics and normalises with them in evaluation",
          "[nn][graph]") {
  const Shape shape{2, 3, 3};
  BatchNorm<double> bn(shape);
  Tensor<double> x(4, shape), y;
  Rng rng(11);
  fill_uniform(x, rng, 1, 3);
  bn.forward(x, y);
  // Training: every channel of y has mean 0 and (biased) variance 1 / (1 + eps / var).
  for (int c = 0; c < 2; ++c) {
    double sum = 0, sq = 0;
    for (int b = 0; b < 4; ++b)
      for (int i = 0; i < 9; ++i) sum += y.sample(b)[c * 9 + i];
    for (int b = 0; b < 4; ++b)
      for (int i = 0; i < 9; ++i) sq += std::pow(y.sample(b)[c * 9 + i] - sum / 36, 2);
    CHECK(std::abs(sum / 36) < 1e-12);
    CHECK(std::abs(sq / 36 - 1) < 1e-4);
  }
  // The running mean moved a tenth of the way from 0 to the batch mean.
  double mean0 = 0;
  for (int b = 0; b < 4; ++b)
    for (int i = 0; i < 9; ++i) mean0 += x.sample(b)[i];
  mean0 /= 36;
  CHECK(bn.running_mean()[0] == Approx(0.1 * mean0).epsilon(1e-12));
  // Evaluation does not update them and uses them.
  const double rm = bn.running_mean()[0], rv = bn.running_var()[0];
  bn.set_training(false);
  Tensor<double> ye;
  bn.forward(x, ye);
  CHECK(bn.running_mean()[0] == rm);
  CHECK(ye[0] == Approx((x[0] - rm) / std::sqrt(rv + 1e-5)).epsilon(1e-12));
  // No channels (configuration files cannot say so: every size is >= 1).
  CHECK_THROWS_WITH(BatchNorm<double>(Shape{0, 3, 3}), Catch::Contains("no channels"));
  // One value per channel cannot be normalised in training.
  bn.set_training(true);
  BatchNorm<double> flat(Shape{3, 1, 1});
  Tensor<double> one(1, Shape{3, 1, 1}), out;
  CHECK_THROWS_WITH(flat.forward(one, out), Catch::Contains("more than one value per channel"));
}

TEST_CASE("Batch normalization's two backward passes share their gradient sums only within a step",
          "[nn][graph]") {
  // Reference: a fresh layer per pass, so nothing can be shared.
  const Shape shape{3, 4, 4};
  Rng rng(5);
  Tensor<double> x(2, shape), dy(2, shape), dy2(2, shape);
  fill_uniform(x, rng, -1, 2);
  fill_uniform(dy, rng, -1, 1);
  fill_uniform(dy2, rng, -1, 1);
  auto fresh = [&](const Tensor<double>& g, Tensor<double>& dx, std::vector<double>& dw) {
    BatchNorm<double> bn(shape);
    Tensor<double> y;
    bn.forward(x, y);
    bn.backward_data(x, y, g, dx);
    BatchNorm<double> bw(shape);
    bw.forward(x, y);
    for (Param<double>* p : bw.params()) p->grad.set_zero();
    bw.backward_weight(x, g);
    dw.clear();
    for (Param<double>* p : bw.params())
      dw.insert(dw.end(), p->grad.vec().begin(), p->grad.vec().end());
  };
  Tensor<double> ref_dx, ref2_dx;
  std::vector<double> ref_dw, ref2_dw;
  fresh(dy, ref_dx, ref_dw);
  fresh(dy2, ref2_dx, ref2_dw);
  auto weights = [](BatchNorm<double>& bn) {
    std::vector<double> w;
    for (Param<double>* p : bn.params())
      w.insert(w.end(), p->grad.vec().begin(), p->grad.vec().end());
    return w;
  };

  BatchNorm<double> bn(shape);
  Tensor<double> y, dx, g(2, shape);
  bn.forward(x, y);
  for (Param<double>* p : bn.params()) p->grad.set_zero();
  g.vec() = dy.vec();
  // The pair of one step, either order: the second takes the first's sums, same results.
  bn.backward_weight(x, g);
  bn.backward_data(x, y, g, dx);
  CHECK(dx.vec() == ref_dx.vec());
  CHECK(weights(bn) == ref_dw);
  // A second backward-data on the same buffers with another gradient in them: nothing left
  // pending (the pair took it), so it is computed afresh.
  g.vec() = dy2.vec();
  bn.backward_data(x, y, g, dx);
  CHECK(dx.vec() == ref2_dx.vec());
  // That call left its sums pending; the same pass again on changed contents must not take
  // them (only the other pass of a step does).
  g.vec() = dy.vec();
  bn.backward_data(x, y, g, dx);
  CHECK(dx.vec() == ref_dx.vec());
  // A forward pass in between drops what is pending: weight after it sees the new gradient.
  bn.forward(x, y);
  g.vec() = dy2.vec();
  for (Param<double>* p : bn.params()) p->grad.set_zero();
  bn.backward_weight(x, g);
  CHECK(weights(bn) == ref2_dw);
}

TEST_CASE("A graph that cannot work is a one-line error naming the layer", "[nn][graph]") {
  auto error = [](const std::string& layers) {
    const std::string text = "name: bad\ninput: [2, 8, 8]\nclasses: 2\nlayers:\n" + layers +
                             "  - {type: global_avgpool, name: g}\n  - {type: flatten}\n"
                             "  - {type: dense, units: 2}\n  - {type: softmax}\n";
    std::string shape_error, numeric_error;
    try {
      const NetworkSpec spec = network_from_yaml(text, "bad.yaml");
      try {
        const NetShape shape(spec);
      } catch (const UserError& e) {
        shape_error = e.what();
      }
      try {
        const Network<float> net(spec);
      } catch (const UserError& e) {
        numeric_error = e.what();
      }
    } catch (const UserError& e) {
      shape_error = numeric_error = e.what();
    }
    // The timing and the numerics refuse the same graphs.
    CHECK(shape_error.empty() == numeric_error.empty());
    CHECK(shape_error.find('\n') == std::string::npos);
    CHECK(numeric_error.find('\n') == std::string::npos);
    return numeric_error.empty() ? shape_error : numeric_error;
  };
  // A layer reading a later one (or itself): the order would make a cycle. The file's line
  // and column are named.
  CHECK_THAT(error("  - {type: conv2d, name: a, filters: 2, kernel: 1, from: b}\n"
                   "  - {type: conv2d, name: b, filters: 2, kernel: 1, from: a}\n"),
             Catch::Contains("bad.yaml:5:") &&
                 Catch::Contains("layer 'a' reads 'b', which is not a layer above it"));
  CHECK_THAT(error("  - {type: conv2d, name: a, filters: 2, kernel: 1, from: a}\n"),
             Catch::Contains("layer 'a' reads 'a', which is not a layer above it"));
  CHECK_THAT(error("  - {type: conv2d, name: a, filters: 3, kernel: 1, from: input}\n"
                   "  - {type: add, name: s, from: [a, input]}\n"),
             Catch::Contains("layer 's' (add): inputs differ in shape: 3x8x8 and 2x8x8"));
  CHECK_THAT(error("  - {type: maxpool2d, name: p, kernel: 2, from: input}\n"
                   "  - {type: concat, name: c, from: [p, input]}\n"),
             Catch::Contains("layer 'c' (concat): inputs differ in height x width"));
  CHECK_THAT(error("  - {type: conv2d, name: a, filters: 2, kernel: 1, from: nowhere}\n"),
             Catch::Contains("layer 'a' reads 'nowhere'"));
  // A spec built in code (not read from a file) gets the same refusal from the graph.
  NetworkSpec spec = network_from_yaml(
      "name: n\ninput: [2, 4, 4]\nclasses: 2\nlayers:\n"
      "  - {type: conv2d, name: a, filters: 2, kernel: 1}\n"
      "  - {type: conv2d, name: b, filters: 2, kernel: 1}\n"
      "  - {type: global_avgpool}\n  - {type: flatten}\n  - {type: softmax}\n");
  spec.layers[0].from = {"b"};
  CHECK_THROWS_WITH(LayerGraph(spec),
                    Catch::Contains("layer 'a' (conv2d): reads layer 'b', which is not above it"));
}
