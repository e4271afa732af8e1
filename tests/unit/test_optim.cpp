// Optimizer updates against hand-computed values.
#include <catch2/catch.hpp>

#include "sim/core/rng.h"
#include "sim/optim/adam.h"
#include "sim/optim/sgd.h"

using namespace trainsim;

namespace {
Param<float> make_param(std::vector<float> value, std::vector<float> grad) {
  Param<float> p;
  p.name = "w";
  p.value.resize(1, Shape{static_cast<int>(value.size()), 1, 1});
  p.grad.resize(1, Shape{static_cast<int>(grad.size()), 1, 1});
  p.value.vec().assign(value.begin(), value.end());
  p.grad.vec().assign(grad.begin(), grad.end());
  return p;
}
}  // namespace

TEST_CASE("SGD with summed, clipped gradients (the seed MLP's rule)", "[optim]") {
  OptimizerSpec spec;
  spec.lr = 0.01;
  spec.reduction = "sum";
  spec.clip = 5;
  Sgd<float> sgd(spec);
  Param<float> p = make_param({1.0f, 1.0f, 1.0f}, {12.0f, -0.5f, -7.0f});
  sgd.step({&p}, 15);
  // The batch size does not scale a summed gradient; 12 and -7 clip to +-5.
  CHECK(p.value[0] == Approx(1.0f - 0.01f * 5.0f));
  CHECK(p.value[1] == Approx(1.0f + 0.01f * 0.5f));
  CHECK(p.value[2] == Approx(1.0f + 0.01f * 5.0f));
}

TEST_CASE("SGD mean reduction divides by the batch before clipping", "[optim]") {
  OptimizerSpec spec;
  spec.lr = 0.1;
  spec.reduction = "mean";
  spec.clip = 1;
  Sgd<float> sgd(spec);
  Param<float> p = make_param({0.0f, 0.0f}, {4.0f, 40.0f});
  sgd.step({&p}, 8);
  CHECK(p.value[0] == Approx(-0.1f * 0.5f));
  CHECK(p.value[1] == Approx(-0.1f * 1.0f));
}

TEST_CASE("SGD momentum accumulates velocity", "[optim]") {
  OptimizerSpec spec;
  spec.lr = 0.1;
  spec.momentum = 0.9;
  Sgd<float> sgd(spec);
  Param<float> p = make_param({0.0f}, {1.0f});
  sgd.step({&p}, 1);
  CHECK(p.value[0] == Approx(-0.1f));
  p.grad.vec().assign({1.0f});
  sgd.step({&p}, 1);
  CHECK(p.value[0] == Approx(-0.1f - 0.1f * 1.9f));
}

TEST_CASE("Weight decay adds lambda * w to the gradient", "[optim]") {
  OptimizerSpec spec;
  spec.lr = 1;
  spec.weight_decay = 0.5;
  Sgd<float> sgd(spec);
  Param<float> p = make_param({2.0f}, {0.0f});
  sgd.step({&p}, 1);
  CHECK(p.value[0] == Approx(1.0f));
}

TEST_CASE("Adam's first steps move each weight by about lr against the gradient sign", "[optim]") {
  OptimizerSpec spec;
  spec.kind = "adam";
  spec.lr = 0.001;
  Adam<float> adam(spec);
  Param<float> p = make_param({0.0f, 0.0f}, {3.0f, -0.02f});
  adam.step({&p}, 1);
  CHECK(p.value[0] == Approx(-0.001f).epsilon(1e-4));
  CHECK(p.value[1] == Approx(0.001f).epsilon(1e-3));
  // Second step with the same gradient: m/sqrt(v) stays 1 after bias correction.
  p.grad.vec().assign({3.0f, -0.02f});
  adam.step({&p}, 1);
  CHECK(p.value[0] == Approx(-0.002f).epsilon(1e-4));
}

TEST_CASE("Rng is reproducible and unbiased enough to shuffle", "[core]") {
  Rng a(42), b(42);
  for (int i = 0; i < 100; ++i) REQUIRE(a.next_u64() == b.next_u64());
  Rng r(7);
  std::vector<int> counts(10, 0);
  for (int i = 0; i < 100000; ++i) ++counts[r.below(10)];
  for (int c : counts) CHECK(std::abs(c - 10000) < 500);
  std::vector<int> v{0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
  Rng s(3);
  s.shuffle(v);
  std::vector<int> sorted = v;
  std::sort(sorted.begin(), sorted.end());
  CHECK(sorted == std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
  CHECK(v != sorted);
}

TEST_CASE("A step schedule multiplies the learning rate after each listed epoch", "[optim]") {
  OptimizerSpec spec;
  spec.lr = 0.1;
  CHECK(spec.lr_at(1) == 0.1);  // no schedule: constant
  CHECK(spec.lr_at(50) == 0.1);
  spec.lr_steps = {2, 4};
  spec.lr_factor = 0.5;
  // Epochs 1-2 at lr, 3-4 at lr / 2, 5 on at lr / 4 (PyTorch's MultiStepLR([2, 4], 0.5)
  // stepped after every epoch).
  CHECK(spec.lr_at(1) == 0.1);
  CHECK(spec.lr_at(2) == 0.1);
  CHECK(spec.lr_at(3) == 0.05);
  CHECK(spec.lr_at(4) == 0.05);
  CHECK(spec.lr_at(5) == 0.025);
  CHECK(spec.lr_at(100) == 0.025);
  // The optimizer steps with the rate it was given last.
  Sgd<float> sgd(spec);
  sgd.set_lr(spec.lr_at(3));
  Param<float> p = make_param({0.0f}, {1.0f});
  sgd.step({&p}, 1);
  CHECK(p.value[0] == Approx(-0.05f));
}
