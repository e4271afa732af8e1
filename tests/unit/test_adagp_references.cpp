// ADA-GP's reference modes and switches: `phase_gp: oracle` (a Phase GP gradient of chosen
// quality made from the batch's true gradient), `diagnostics: true` (Phase GP measured
// against the truth without changing the training), `predictor: {calibrate: false}`.
#include <catch2/catch.hpp>

#include <cmath>

#include "sim/core/error.h"
#include "sim/core/paths.h"
#include "sim/report/train_report.h"
#include "sim/run/experiment_file.h"
#include "sim/techniques/adagp_settings.h"
#include "sim/techniques/gradient_predictor.h"
#include "sim/techniques/predictor_stats.h"
#include "tests/unit/adagp_fixtures.h"

using namespace trainsim;
using namespace trainsim::test;

namespace {

struct Run {
  std::vector<EpochMetrics> metrics;
  std::string epochs_csv;  // the file `trainsim train` writes
  std::vector<float> weights;
  std::vector<Recorder::Batch> passes;  // what the accelerator session would be shown
};

Run train(const ExperimentSpec& spec, const Dataset& data, int epochs) {
  Trainer trainer(spec, data);
  Recorder rec;
  trainer.network().set_observer(&rec);
  Run r;
  for (int e = 0; e < epochs; ++e) r.metrics.push_back(trainer.run_epoch());
  trainer.network().set_observer(nullptr);
  r.epochs_csv = epochs_csv(r.metrics);
  r.weights = all_weights(trainer.network());
  r.passes = rec.batches;
  return r;
}

// SGD with momentum, batch 10 of 60 samples: 6 batches per epoch.
ExperimentSpec experiment(const NetworkSpec& net) {
  ExperimentSpec spec;
  spec.network = net;
  spec.training.batch_size = 10;
  spec.training.optimizer.kind = "sgd";
  spec.training.optimizer.lr = 0.02;
  spec.training.optimizer.momentum = 0.9;
  spec.training.optimizer.reduction = "mean";
  return spec;
}

// ADA-GP with one warm-up epoch, then GP GP BP per three batches.
ExperimentSpec adagp(ExperimentSpec spec, const std::string& phase_gp) {
  spec.sim.technique.kind = "adagp-efficient";
  spec.sim.technique.own<AdaGpSettings>().warmup_epochs = 1;
  spec.sim.technique.own<AdaGpSettings>().schedule = {{{2, 1, 0}}};
  spec.sim.technique.own<AdaGpSettings>().phase_gp = phase_gp;
  return spec;
}

NetworkSpec network(const std::string& name) {
  return load_network(configs_root() + "/networks/" + name + ".yaml");
}

}  // namespace

TEST_CASE("phase_gp oracle with cosine 1 and magnitude 1 trains bit for bit like bp",
          "[adagp][oracle]") {
  // The oracle applies the batch's true gradient through ADA-GP's schedule and per-layer
  // optimizers: nothing in that plumbing may change the training.
  const Dataset data = band_data(60, 28, 10);
  for (const char* name : {"seed_mlp", "lenet5"}) {
    INFO(name);
    const ExperimentSpec bp_spec = experiment(network(name));
    const Run bp = train(bp_spec, data, 3);
    ExperimentSpec oracle_spec = adagp(bp_spec, "oracle");
    const Run oracle = train(oracle_spec, data, 3);
    CHECK(oracle.metrics[1].technique.phase_batches[AdagpSchedule::kPhaseGp] == 4);
    CHECK(oracle.metrics[2].technique.phase_batches[AdagpSchedule::kPhaseGp] == 4);
    CHECK(oracle.epochs_csv == bp.epochs_csv);
    CHECK(oracle.weights == bp.weights);
    // And the oracle is what Phase GP applies: a slightly worse one changes the weights.
    oracle_spec.sim.technique.own<AdaGpSettings>().oracle_cosine = 0.999;
    CHECK(train(oracle_spec, data, 3).weights != bp.weights);
  }
}

TEST_CASE("phase_gp oracle applies the requested cosine and magnitude, fresh or persistent noise",
          "[adagp][oracle]") {
  const Dataset data = tiny_data(60);
  for (const bool persistent : {false, true}) {
    INFO("persistent " << persistent);
    ExperimentSpec spec = tiny_adagp_spec(0.9, 2, "oracle");
    spec.sim.technique.own<AdaGpSettings>().oracle_cosine = 0.3;
    spec.sim.technique.own<AdaGpSettings>().oracle_magnitude = 0.5;
    spec.sim.technique.own<AdaGpSettings>().oracle_persistent = persistent;
    spec.sim.technique.own<AdaGpSettings>().diagnostics = true;
    const Run r = train(spec, data, 3);
    // Phase GP backprops (it needs the truth): timed like a backprop batch.
    for (std::size_t b = 6; b < r.passes.size(); ++b) CHECK(r.passes[b].backward > 0);
    for (int e = 1; e < 3; ++e)
      for (const PredictorLayerStats& s :
           predictor_rows(*r.metrics[static_cast<std::size_t>(e)].layer_stats)) {
        INFO("epoch " << e + 1 << ", layer " << s.layer);
        CHECK(s.gp_batches == 4);
        CHECK(s.gp_cosine == Approx(0.3).margin(1e-4));
        CHECK(s.gp_magnitude == Approx(0.5).margin(1e-4));
        // Fresh noise: consecutive error directions unrelated (the layers have 136 and 27
        // weights); persistent: one direction, only projected off each batch's gradient.
        if (persistent)
          CHECK(s.gp_persistence > 0.8);
        else
          CHECK(std::fabs(s.gp_persistence) < 0.4);
      }
  }
}

TEST_CASE("diagnostics leave the training bit-identical and measure Phase GP against the truth",
          "[adagp][diagnostics]") {
  const Dataset data = tiny_data(60);
  // "raw": the predictions without the calibration gain, which stays 0 on this tiny model
  // (the predictor does not learn it), so that something is applied.
  // Also with state beside the parameters, which the measurement's extra forward pass must
  // not move: batchnorm's running statistics (read by the evaluations) and dropout's stream.
  NetworkSpec with_state = tiny_mlp();
  with_state.layers = {layer("flatten"), layer("dense", 8), layer("batchnorm"), layer("relu"),
                       layer("dropout"), layer("dense", 3), layer("softmax")};
  for (const bool stateful : {false, true})
    for (const std::string m : {"predict", "raw", "skip", "zero", "mean", "pseudo"}) {
      INFO(m << (stateful ? " with batchnorm and dropout" : ""));
      ExperimentSpec spec = tiny_adagp_spec(0.9, 2, m == "raw" ? "predict" : m);
      if (stateful) spec.network = with_state;
      spec.sim.technique.own<AdaGpSettings>().predictor_calibrate = m != "raw";
      const Run off = train(spec, data, 3);
      spec.sim.technique.own<AdaGpSettings>().diagnostics = true;
      const Run on = train(spec, data, 3);
      CHECK(on.epochs_csv == off.epochs_csv);
      CHECK(on.weights == off.weights);
      CHECK(on.passes == off.passes);  // the measurement pass is not observed: not timed
      for (int e = 1; e < 3; ++e)
        for (std::size_t k = 0; k < 2; ++k) {
          const PredictorLayerStats& s =
              predictor_rows(*on.metrics[static_cast<std::size_t>(e)].layer_stats)[k];
          const PredictorLayerStats& plain =
              predictor_rows(*off.metrics[static_cast<std::size_t>(e)].layer_stats)[k];
          INFO("epoch " << e + 1 << ", layer " << s.layer);
          CHECK(s.gp_batches == 4);
          CHECK(plain.gp_batches == 0);
          CHECK(std::isnan(plain.gp_cosine));
          CHECK(std::isnan(plain.grad_prev_cosine));
          CHECK(s.grad_prev_cosine >= -1);
          CHECK(s.grad_prev_cosine <= 1);
          CHECK(s.grad_mean_cosine >= -1);
          CHECK(s.grad_mean_cosine <= 1);
          if (m == "predict" && !stateful) {  // gain 0 here: the same as zero
            CHECK(s.gain == 0);
            CHECK(s.gp_magnitude == 0);
          } else if (m == "predict") {   // the gain moves during the epoch: some layers apply
            CHECK(s.gp_magnitude >= 0);  // nothing in some batches (no angle then)
            CHECK((std::isnan(s.gp_cosine) || (s.gp_cosine >= -1 && s.gp_cosine <= 1)));
          } else if (m == "skip" || m == "zero") {  // nothing applied: no angle, magnitude 0
            CHECK(std::isnan(s.gp_cosine));
            CHECK(s.gp_magnitude == 0);
          } else {
            CHECK(s.gp_cosine >= -1);
            CHECK(s.gp_cosine <= 1);
            CHECK(s.gp_magnitude > 0);
          }
          // The MSE, MAPE and cosine of Phase BP batches are the same measurement either way.
          CHECK(s.cosine == plain.cosine);
        }
    }
}

TEST_CASE("predictor calibrate false applies exactly the de-normalised predictor output",
          "[adagp][predictor]") {
  // tiny_cnn: conv2d (layer 0; weights stored per filter) and dense (layer 2; per input).
  const Dataset data = band_data(10, 5, 3);
  // A predictor trained for 4 batches on layer `layer`'s true gradients, then predicting.
  auto predictor = [&](bool calibrate, std::size_t layer, Network<float>& net) {
    TechniqueSpec t;
    t.kind = "adagp-efficient";
    t.own<AdaGpSettings>().predictor_calibrate = calibrate;
    t.own<AdaGpSettings>().predictor_lr = 1e-2;
    auto pred = std::make_unique<GradientPredictor>(t, net, 7);
    ForwardPass<float> pass;
    BackwardScratch<float> scratch;
    first_batch(data, net, pass);
    for (int i = 0; i < 4; ++i) {  // learn the scales and (with calibration) the gain
      net.forward(pass);
      net.zero_grad();
      net.backward(pass, data.train.labels.data(), scratch);
      pred->train(layer, pass.acts[layer + 1]);
    }
    pred->predict(layer, pass.acts[layer + 1]);
    return pred;
  };
  for (const std::size_t layer : {std::size_t{0}, std::size_t{2}}) {
    INFO("layer " << layer);
    Network<float> raw_net(tiny_cnn()), cal_net(tiny_cnn());
    raw_net.init(3);
    cal_net.init(3);
    const auto raw = predictor(false, layer, raw_net);
    const auto cal = predictor(true, layer, cal_net);
    CHECK(raw->gain(layer) == 1.0);
    CHECK(cal->gain(layer) < 1.0);
    CHECK(all_weights(raw_net) == all_weights(cal_net));  // grads differ, values do not
    CHECK(raw_net.layer(layer).params()[0]->grad.data()[0] !=
          cal_net.layer(layer).params()[0]->grad.data()[0]);
    const auto params = raw_net.layer(layer).params();
    const Tensor<float>& w = params[0]->grad;
    const Tensor<float>& b = params[1]->grad;
    const Tensor<float>& out = raw->last_output();
    const bool conv = layer == 0;
    const int samples = raw->samples(layer), fan_in = raw->outputs(layer) - 1;
    REQUIRE(raw->weight_scale(layer) > 0);
    for (int s = 0; s < samples; ++s) {
      for (int i = 0; i < fan_in; ++i) {
        const std::size_t at = conv ? static_cast<std::size_t>(s) * fan_in + i
                                    : static_cast<std::size_t>(i) * samples + s;
        CHECK(w[at] == out.sample(s)[i] * raw->weight_scale(layer));
      }
      CHECK(b[static_cast<std::size_t>(s)] == out.sample(s)[fan_in] * raw->bias_scale(layer));
    }
  }
}

TEST_CASE("technique keys oracle, predictor.calibrate and diagnostics: parsed and checked",
          "[adagp][config]") {
  const std::string exp = configs_root() + "/experiments/lenet5_mnist.yaml";
  const ExperimentSpec spec = load_experiment(
      exp, {"technique={kind: adagp-low, phase_gp: oracle, oracle: {cosine: -0.25, magnitude: "
            "2, persistent: true}, predictor: {calibrate: false}, diagnostics: true}"});
  const TechniqueSpec& t = spec.sim.technique;
  CHECK(t.get<AdaGpSettings>().phase_gp == "oracle");
  CHECK(t.get<AdaGpSettings>().oracle_cosine == -0.25);
  CHECK(t.get<AdaGpSettings>().oracle_magnitude == 2);
  CHECK(t.get<AdaGpSettings>().oracle_persistent);
  CHECK_FALSE(t.get<AdaGpSettings>().predictor_calibrate);
  CHECK(t.get<AdaGpSettings>().diagnostics);
  auto error = [&](const std::string& technique) {
    try {
      load_experiment(exp, {"technique=" + technique});
    } catch (const UserError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK_THAT(error("{kind: adagp-max, oracle: {cosine: 1.5}}"),
             Catch::Contains("cosine") && Catch::Contains("[-1, 1]"));
  CHECK_THAT(error("{kind: adagp-max, oracle: {magnitude: -1}}"), Catch::Contains("magnitude"));
  CHECK_THAT(error("{kind: adagp-max, oracle: {rho: 0.5}}"), Catch::Contains("rho"));
  CHECK_THAT(error("{kind: adagp-max, diagnostics: 3}"), Catch::Contains("diagnostics"));
  CHECK_THAT(error("{kind: bp, diagnostics: true}"), Catch::Contains("diagnostics"));
  // An oracle quality without phase_gp: oracle would be ignored.
  CHECK_THAT(error("{kind: adagp-max, oracle: {cosine: 0.2}}"),
             Catch::Contains("technique.oracle") &&
                 Catch::Contains("applies only with phase_gp: oracle (phase_gp is 'predict')"));
  CHECK(error("{kind: adagp-max, oracle: {cosine: 1, magnitude: 1}}") == "no error");
}
