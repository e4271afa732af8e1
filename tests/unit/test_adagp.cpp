// ADA-GP: the phase schedule, the predictor's tensor reorganization and training, and the
// technique's phases and op reporting.
#include <catch2/catch.hpp>

#include <cmath>
#include <map>

#include "sim/core/rng.h"
#include "sim/nn/network.h"
#include "sim/optim/optimizer_registry.h"
#include "sim/techniques/adagp.h"
#include "sim/techniques/adagp_settings.h"
#include "sim/techniques/predictor_stats.h"
#include "sim/train/trainer.h"
#include "tests/unit/adagp_fixtures.h"

using namespace trainsim;
using namespace trainsim::test;

namespace {

using S = AdagpSchedule;

}  // namespace

TEST_CASE("ADA-GP schedule: warm-up, then k GP : m BP batches per epoch", "[adagp]") {
  TechniqueSpec t;
  t.kind = "adagp-efficient";
  t.own<AdaGpSettings>().warmup_epochs = 2;
  t.own<AdaGpSettings>().schedule = {{{4, 1, 1}}, {{3, 1, 2}}, {{2, 1, 1}}};
  const S s(t);
  for (int b = 0; b < 12; ++b) CHECK(s.phase(0, b) == S::kWarmUp);
  CHECK(s.phase(1, 99) == S::kWarmUp);
  // Epoch 2: 4:1, starting with Phase GP.
  const int e2[] = {2, 2, 2, 2, 1, 2, 2, 2, 2, 1, 2};
  for (int b = 0; b < 11; ++b) CHECK(s.phase(2, b) == e2[b]);
  // Epochs 3 and 4: 3:1; the batch count restarts every epoch.
  for (int e : {3, 4}) {
    const int p[] = {2, 2, 2, 1, 2, 2, 2, 1};
    for (int b = 0; b < 8; ++b) CHECK(s.phase(e, b) == p[b]);
  }
  // Epoch 5: 2:1, the last entry, which then continues forever.
  for (int e : {5, 6, 40}) {
    const int p[] = {2, 2, 1, 2, 2, 1};
    for (int b = 0; b < 6; ++b) CHECK(s.phase(e, b) == p[b]);
  }
  // The default: 4:1 for 4 epochs, 3:1, 2:1, then 1:1 (epochs 0 = forever).
  TechniqueSpec d;
  const S def(d);
  CHECK(def.phase(0, 0) == S::kWarmUp);
  CHECK(def.ratio(1) == std::array<int, 2>{4, 1});
  CHECK(def.ratio(4) == std::array<int, 2>{4, 1});
  CHECK(def.ratio(5) == std::array<int, 2>{3, 1});
  CHECK(def.ratio(9) == std::array<int, 2>{2, 1});
  CHECK(def.ratio(13) == std::array<int, 2>{1, 1});
  CHECK(def.ratio(500) == std::array<int, 2>{1, 1});
  CHECK(def.phase(13, 0) == S::kPhaseGp);
  CHECK(def.phase(13, 1) == S::kPhaseBp);
}

TEST_CASE("Tensor reorganization: conv channels and dense units become predictor samples",
          "[adagp]") {
  Network<float> net(tiny_cnn());
  net.init(3);
  TechniqueSpec t;
  t.own<AdaGpSettings>().predictor_size =
      3;  // the conv output is 3x3: resizing is the identity for it
  GradientPredictor gp(t, net, 7);
  CHECK(gp.samples(0) == 2);
  CHECK(gp.samples(1) == 0);
  CHECK(gp.samples(2) == 3);
  CHECK(gp.outputs(0) == 1 * 3 * 3 + 1);
  CHECK(gp.outputs(2) == 18 + 1);
  CHECK(gp.max_outputs() == 19);
  CHECK(gp.size() == 3);
  CHECK(gp.channels() == t.get<AdaGpSettings>().predictor_channels);
  // conv(1 -> C, 3x3) + bias, dense(C*9 -> 19) + bias.
  const std::int64_t c = t.get<AdaGpSettings>().predictor_channels;
  CHECK(gp.param_count() == c * 9 + c + c * 9 * 19 + 19);

  Rng rng(1);
  SECTION("conv: the batch mean of each channel; targets are filter rows plus bias") {
    Tensor<float> y(2, Shape{2, 3, 3});
    fill(y, rng);
    Tensor<float> x;
    gp.reorganize(0, y, x);
    REQUIRE(x.n() == 2);
    REQUIRE(x.shape() == (Shape{1, 3, 3}));
    for (int f = 0; f < 2; ++f)
      for (int k = 0; k < 9; ++k)
        CHECK(x.sample(f)[k] == Approx((y.sample(0)[f * 9 + k] + y.sample(1)[f * 9 + k]) / 2));
    auto params = net.layer(0).params();
    fill(params[0]->grad, rng);
    fill(params[1]->grad, rng);
    std::vector<float> tg;
    gp.gather_targets(0, tg);
    REQUIRE(tg.size() == 2 * 10);
    for (int f = 0; f < 2; ++f) {
      for (int k = 0; k < 9; ++k) CHECK(tg[f * 10 + k] == params[0]->grad[f * 9 + k]);
      CHECK(tg[f * 10 + 9] == params[1]->grad[f]);
    }
  }
  SECTION("dense: each unit's sorted batch activations, resized; targets are columns") {
    Tensor<float> y(4, Shape{3, 1, 1});
    fill(y, rng);
    Tensor<float> x;
    gp.reorganize(2, y, x);
    REQUIRE(x.n() == 3);
    for (int j = 0; j < 3; ++j) {
      std::vector<float> v;
      for (int b = 0; b < 4; ++b) v.push_back(y.sample(b)[j]);
      std::sort(v.begin(), v.end());
      // Width 4 -> 3 by adaptive average pooling (bins [0,2), [1,3), [2,4)); height 1 -> 3
      // by replication.
      const float want[3] = {(v[0] + v[1]) / 2, (v[1] + v[2]) / 2, (v[2] + v[3]) / 2};
      for (int r = 0; r < 3; ++r)
        for (int col = 0; col < 3; ++col) CHECK(x.sample(j)[r * 3 + col] == Approx(want[col]));
    }
    auto params = net.layer(2).params();
    fill(params[0]->grad, rng);
    fill(params[1]->grad, rng);
    std::vector<float> tg;
    gp.gather_targets(2, tg);
    REQUIRE(tg.size() == 3 * 19);
    for (int j = 0; j < 3; ++j) {
      for (int i = 0; i < 18; ++i) CHECK(tg[j * 19 + i] == params[0]->grad[i * 3 + j]);
      CHECK(tg[j * 19 + 18] == params[1]->grad[j]);
    }
  }
  SECTION("predictions land in the same layout, scaled by the layer's gradient RMS") {
    Tensor<float> y(2, Shape{2, 3, 3});
    fill(y, rng);
    auto params = net.layer(0).params();
    // Before any training there is no scale: the prediction is zero, not noise.
    fill(params[0]->grad, rng);
    gp.predict(0, y);
    for (std::size_t k = 0; k < params[0]->grad.size(); ++k) CHECK(params[0]->grad[k] == 0);
    fill(params[0]->grad, rng, 1e-4);
    fill(params[1]->grad, rng, 1e-4);
    gp.train(0, y);
    gp.predict(0, y);
    double ms = 0;
    for (std::size_t k = 0; k < params[0]->grad.size(); ++k)
      ms += params[0]->grad[k] * params[0]->grad[k];
    // Never larger than the targets' scale (times O(1) outputs and a gain <= 1); zero only
    // if the calibration found the untrained predictor anti-correlated.
    CHECK(gp.gain(0) >= 0);
    CHECK(gp.gain(0) <= 1);
    CHECK(std::sqrt(ms / 18) < 1e-2);
    if (gp.gain(0) > 0) CHECK(std::sqrt(ms / 18) > 1e-9);
  }
}

TEST_CASE("The predictor learns a fixed synthetic target", "[adagp]") {
  Network<float> net(tiny_cnn());
  net.init(3);
  TechniqueSpec t;
  t.own<AdaGpSettings>().predictor_lr = 1e-3;
  GradientPredictor gp(t, net, 7);
  Rng rng(2);
  Tensor<float> y(4, Shape{3, 1, 1});
  fill(y, rng);
  auto params = net.layer(2).params();
  Tensor<float> w = params[0]->grad, b = params[1]->grad;
  fill(w, rng, 1e-3);
  fill(b, rng, 1e-3);
  double first = 0, last = 0;
  for (int step = 0; step < 300; ++step) {
    params[0]->grad = w;
    params[1]->grad = b;
    const PredictorError e = gp.train(2, y);
    if (step == 0) first = e.mse;
    last = e.mse;
    CHECK(std::isfinite(e.mape));
  }
  CHECK(first > 0.1);
  CHECK(last < 0.1 * first);
  // A predictor that has learnt its target is trusted fully.
  CHECK(gp.gain(2) > 0.8);
}

TEST_CASE("Masked predictor outputs do not affect a smaller layer", "[adagp]") {
  Network<float> net(tiny_cnn());
  net.init(3);
  TechniqueSpec t;
  GradientPredictor a(t, net, 7), b(t, net, 7);
  // Scramble b's head beyond the conv layer's 10 outputs (weight columns and bias entries).
  Rng rng(4);
  const int p = a.outputs(0), pmax = a.max_outputs();
  REQUIRE(p < pmax);
  Param<float>& hw = *b.params()[2];
  Param<float>& hb = *b.params()[3];
  for (int r = 0; r < hw.value.n(); ++r)
    for (int j = p; j < pmax; ++j) hw.value.sample(r)[j] = static_cast<float>(rng.uniform(-5, 5));
  for (int j = p; j < pmax; ++j) hb.value[j] = static_cast<float>(rng.uniform(-5, 5));
  const Tensor<float> a_head = a.params()[2]->value;

  Tensor<float> y(2, Shape{2, 3, 3});
  fill(y, rng);
  auto params = net.layer(0).params();
  fill(params[0]->grad, rng, 1e-3);
  fill(params[1]->grad, rng, 1e-3);
  const Tensor<float> w = params[0]->grad, bias = params[1]->grad;
  for (int step = 0; step < 3; ++step) {
    params[0]->grad = w, params[1]->grad = bias;
    const PredictorError ea = a.train(0, y);
    params[0]->grad = w, params[1]->grad = bias;
    const PredictorError eb = b.train(0, y);
    CHECK(ea.mse == eb.mse);
    CHECK(ea.mape == eb.mape);
  }
  // The used outputs trained identically; the masked ones got no gradient.
  const Tensor<float>& aw = a.params()[2]->value;
  for (int r = 0; r < aw.n(); ++r) {
    for (int j = 0; j < p; ++j) CHECK(aw.sample(r)[j] == hw.value.sample(r)[j]);
    for (int j = p; j < pmax; ++j) CHECK(aw.sample(r)[j] == a_head.sample(r)[j]);
  }
  a.predict(0, y);
  const Tensor<float> pa = params[0]->grad;
  b.predict(0, y);
  for (std::size_t k = 0; k < pa.size(); ++k) CHECK(pa[k] == params[0]->grad[k]);
}

TEST_CASE("AdaGp runs all three phases, Phase GP issues no backward pass", "[adagp]") {
  ExperimentSpec spec = tiny_adagp_spec(0.9);
  spec.sim.technique.own<AdaGpSettings>().schedule = {{{2, 1, 1}}, {{1, 1, 0}}};
  const Dataset data = tiny_data(60);  // 6 batches per epoch
  Trainer trainer(spec, data);
  Recorder rec;
  trainer.network().set_observer(&rec);

  const EpochMetrics e1 = trainer.run_epoch();
  CHECK(e1.technique.phase_batches[AdagpSchedule::kWarmUp] == 6);
  CHECK(e1.technique.phase_batches[AdagpSchedule::kPhaseBp] +
            e1.technique.phase_batches[AdagpSchedule::kPhaseGp] ==
        0);
  const EpochMetrics e2 = trainer.run_epoch();  // 2:1 -> GP GP BP GP GP BP
  CHECK(e2.technique.phase_batches[AdagpSchedule::kWarmUp] == 0);
  CHECK(e2.technique.phase_batches[AdagpSchedule::kPhaseGp] == 4);
  CHECK(e2.technique.phase_batches[AdagpSchedule::kPhaseBp] == 2);
  const EpochMetrics e3 = trainer.run_epoch();  // 1:1
  CHECK(e3.technique.phase_batches[AdagpSchedule::kPhaseGp] == 3);
  CHECK(e3.technique.phase_batches[AdagpSchedule::kPhaseBp] == 3);
  CHECK(e3.technique.steps == 60);
  CHECK(std::isfinite(e3.train.loss));
  CHECK(e3.test.accuracy > 0.5);

  REQUIRE(rec.batches.size() == 18);
  const int layers = static_cast<int>(trainer.network().size());
  const int param_layers = 2;
  const int phases[] = {2, 2, 1, 2, 2, 1};
  for (std::size_t i = 0; i < rec.batches.size(); ++i) {
    Recorder::Batch b = rec.batches[i];
    INFO("batch " << i);
    if (i < 6) CHECK(b.phase == 0);
    if (i >= 6 && i < 12) CHECK(b.phase == phases[i - 6]);
    CHECK(b.forward == layers);
    CHECK(b.updates == param_layers);
    if (b.phase == 2) {
      CHECK(b.backward == 0);
      CHECK(b.predictor[0] == param_layers);
      CHECK(b.predictor.count(1) == 0);
      CHECK(b.predictor.count(2) == 0);
    } else {
      CHECK(b.backward > 0);
      for (int pass : {0, 1, 2}) CHECK(b.predictor[pass] == param_layers);
    }
  }
}

TEST_CASE("AdaGp in Warm Up trains exactly like bp, reports predictor errors", "[adagp]") {
  ExperimentSpec spec;
  spec.network = tiny_mlp();
  spec.training.batch_size = 7;
  spec.training.optimizer.kind = "adam";
  spec.training.optimizer.lr = 0.01;
  spec.training.optimizer.reduction = "mean";
  const Dataset data = tiny_data(30);
  Trainer bp(spec, data);
  ExperimentSpec ada_spec = spec;
  ada_spec.sim.technique.kind = "adagp-low";
  ada_spec.sim.technique.own<AdaGpSettings>().warmup_epochs = 5;
  Trainer ada(ada_spec, data);
  for (int e = 0; e < 2; ++e) {
    bp.run_epoch();
    ada.run_epoch();
  }
  const auto pb = bp.network().params(), pa = ada.network().params();
  REQUIRE(pb.size() == pa.size());
  for (std::size_t k = 0; k < pb.size(); ++k)
    for (std::size_t i = 0; i < pb[k]->value.size(); ++i) CHECK(pb[k]->value[i] == pa[k]->value[i]);

  // Driven directly: per-layer errors over the backprop batches.
  Network<float> net(tiny_mlp());
  net.init(1);
  TechniqueSpec t;
  t.kind = "adagp-max";
  AdaGp tech(t, net);
  REQUIRE(tech.param_layers() == std::vector<std::size_t>{1, 3});
  auto opt = find_optimizer("sgd")->make(spec.training.optimizer);
  auto params = net.params();
  ForwardPass<float> pass;
  BackwardScratch<float> scratch;
  first_batch(data, net, pass);
  BatchContext ctx{net, *opt, params, pass, scratch, data.train.labels.data(), 10};
  tech.on_epoch_begin(0);
  for (int i = 0; i < 3; ++i) tech.train_batch(ctx);
  const auto taken = tech.take_layer_stats();
  REQUIRE(taken != nullptr);
  const std::vector<PredictorLayerStats>& errors = predictor_rows(*taken);
  REQUIRE(errors.size() == 2);
  CHECK(errors[0].layer == 1);
  CHECK(errors[1].layer == 3);
  for (const PredictorLayerStats& e : errors) {
    CHECK(e.batches == 3);
    CHECK(e.mse > 0);
    CHECK(std::isfinite(e.mse));
    CHECK(e.mape > 0);
    CHECK(e.cosine >= -1);
    CHECK(e.cosine <= 1);
    CHECK(e.cosine != 0);
    CHECK(e.gain >= 0);
    CHECK(e.gain <= 1);
  }
  CHECK(tech.take_counts().phase_batches[AdagpSchedule::kWarmUp] == 3);
  const auto reset = predictor_rows(*tech.take_layer_stats());
  CHECK(reset[0].batches == 0);
  CHECK(reset[0].mse == 0);
}

TEST_CASE("Phase GP ablations: skip leaves the weights alone, zero moves them by momentum only",
          "[adagp]") {
  // Epoch 1 warm-up, epoch 2 all Phase GP (k = 6 of 6 batches before any Phase BP).
  auto weights_after_gp_epoch = [](const std::string& mode, double momentum, bool& changed) {
    const ExperimentSpec spec = tiny_adagp_spec(momentum, 6, mode);
    const Dataset data = tiny_data(60);
    Trainer trainer(spec, data);  // keeps references
    Recorder rec;
    trainer.network().set_observer(&rec);
    trainer.run_epoch();
    const std::vector<float> before = all_weights(trainer.network());
    const EpochMetrics e = trainer.run_epoch();
    CHECK(e.technique.phase_batches[AdagpSchedule::kPhaseGp] == 6);
    const std::vector<float> after = all_weights(trainer.network());
    changed = before != after;
    // Neither ablation runs the predictor in Phase GP; zero and predict update every layer.
    for (std::size_t i = 6; i < rec.batches.size(); ++i) {
      CHECK(rec.batches[i].backward == 0);
      CHECK(rec.batches[i].predictor.count(0) == (mode == "predict" ? 1u : 0u));
      CHECK(rec.batches[i].updates == (mode == "skip" ? 0 : 2));
    }
    return after;
  };
  bool changed = false;
  weights_after_gp_epoch("skip", 0.9, changed);
  CHECK_FALSE(changed);
  weights_after_gp_epoch("zero", 0.0, changed);  // no momentum: a zero gradient is no step
  CHECK_FALSE(changed);
  weights_after_gp_epoch("zero", 0.9, changed);
  CHECK(changed);  // the warm-up's momentum keeps moving the weights
  weights_after_gp_epoch("predict", 0.9, changed);
  CHECK(changed);
}

TEST_CASE(
    "Phase GP ablation mean: a Phase GP step applies the running mean of past true "
    "gradients",
    "[adagp]") {
  // One batch per epoch: epoch 1 is the warm-up batch, epoch 2 a Phase GP batch. Without
  // momentum the warm-up moves the weights by -lr * g; the mean of one batch is g, so the
  // Phase GP batch moves them by the same step again. "zero" does not move them at all.
  auto steps = [](const std::string& mode) {
    const ExperimentSpec spec = tiny_adagp_spec(0, 1, mode);
    const Dataset data = tiny_data(10);
    Trainer trainer(spec, data);  // keeps references
    Recorder rec;
    trainer.network().set_observer(&rec);
    auto weights = [&] { return all_weights(trainer.network()); };
    const std::vector<float> w0 = weights();
    trainer.run_epoch();
    const std::vector<float> w1 = weights();
    CHECK(trainer.run_epoch().technique.phase_batches[AdagpSchedule::kPhaseGp] == 1);
    const std::vector<float> w2 = weights();
    // The Phase GP batch: no backward pass, no predictor, both layers updated.
    REQUIRE(rec.batches.size() >= 2);
    CHECK(rec.batches[1].backward == 0);
    CHECK(rec.batches[1].predictor.empty());
    CHECK(rec.batches[1].updates == 2);
    std::vector<std::pair<float, float>> d;  // (warm-up step, Phase GP step) per weight
    for (std::size_t i = 0; i < w0.size(); ++i) d.emplace_back(w1[i] - w0[i], w2[i] - w1[i]);
    return d;
  };
  int moved = 0;
  for (const auto& [warm, gp] : steps("mean")) {
    CHECK(gp == Approx(warm).margin(1e-7));
    moved += warm != 0;
  }
  CHECK(moved > 0);
  for (const auto& [warm, gp] : steps("zero")) CHECK(gp == 0);
}

TEST_CASE("Phase GP ablation pseudo: backprop with the model's own classes as labels", "[adagp]") {
  // A Phase GP batch in "pseudo" mode trains exactly like a backprop batch whose labels are
  // the model's predictions, whatever the batch's true labels are.
  const Dataset data = tiny_data(10);
  OptimizerSpec o;
  o.kind = "sgd";
  o.lr = 0.05;
  o.momentum = 0.9;
  o.reduction = "mean";
  auto run = [&](int warmup, const std::string& mode, const std::uint8_t* labels, BatchResult& r) {
    Network<float> net(tiny_mlp());
    net.init(1);
    TechniqueSpec t;
    t.kind = "adagp-efficient";
    t.own<AdaGpSettings>().warmup_epochs = warmup;
    t.own<AdaGpSettings>().schedule = {{{1, 1, 0}}};
    t.own<AdaGpSettings>().phase_gp = mode;
    AdaGp tech(t, net);
    auto opt = find_optimizer("sgd")->make(o);
    auto params = net.params();
    ForwardPass<float> pass;
    BackwardScratch<float> scratch;
    first_batch(data, net, pass);
    BatchContext ctx{net, *opt, params, pass, scratch, labels, 10};
    tech.on_epoch_begin(0);
    r = tech.train_batch(ctx);
    CHECK(tech.take_counts().phase_batches[AdagpSchedule::kPhaseGp] == (warmup == 0 ? 1 : 0));
    return all_weights(net);
  };
  // The untrained model's classes for the batch.
  Network<float> net(tiny_mlp());
  net.init(1);
  ForwardPass<float> pass;
  first_batch(data, net, pass);
  net.forward(pass);
  std::vector<std::uint8_t> predicted(10), wrong(10);
  for (int b = 0; b < 10; ++b) {
    const float* p = pass.probs().sample(b);
    predicted[b] = static_cast<std::uint8_t>(std::max_element(p, p + 3) - p);
    wrong[b] = static_cast<std::uint8_t>((predicted[b] + 1) % 3);
  }
  BatchResult bp_result, gp_result;
  const std::vector<float> bp = run(1, "predict", predicted.data(), bp_result);  // warm-up
  const std::vector<float> gp = run(0, "pseudo", wrong.data(), gp_result);       // Phase GP
  CHECK(bp == gp);
  CHECK(bp_result.correct == 10);
  CHECK(gp_result.correct == 0);  // accuracy is still counted against the true labels
}
