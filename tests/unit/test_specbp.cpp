// Speculative backprop's decision rule and its technique configuration.
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>

#include "sim/core/rng.h"
#include "sim/run/experiment_file.h"
#include "sim/techniques/specbp.h"
#include "sim/techniques/specbp_settings.h"
#include "tests/support/temp_dir.h"

using namespace trainsim;

TEST_CASE("The output distance never exceeds 2 / classes, so threshold 0.25 never misses",
          "[specbp]") {
  // Two probability vectors differ by at most 2 in total (|p - q| summed <= sum p + sum q),
  // so the mean over 10 outputs is at most 0.2; one-hot vectors of different classes reach it.
  float a[10] = {1, 0, 0, 0, 0, 0, 0, 0, 0, 0}, b[10] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
  CHECK(SpecBackprop::distance(a, b, 10) == Approx(0.2));
  CHECK(SpecBackprop::distance(a, a, 10) == 0.0);
  Rng rng(9);
  double worst = 0;
  for (int trial = 0; trial < 20000; ++trial) {
    float p[10], q[10];
    double sp = 0, sq = 0;
    for (int k = 0; k < 10; ++k) {
      // Skewed draws reach near-one-hot vectors as well as flat ones.
      p[k] = static_cast<float>(std::pow(rng.uniform(), 1 + 20 * rng.uniform()));
      q[k] = static_cast<float>(std::pow(rng.uniform(), 1 + 20 * rng.uniform()));
      sp += p[k];
      sq += q[k];
    }
    for (int k = 0; k < 10; ++k) p[k] /= static_cast<float>(sp), q[k] /= static_cast<float>(sq);
    worst = std::max(worst, SpecBackprop::distance(p, q, 10));
  }
  CHECK(worst <= 0.2 + 1e-6);
  CHECK(worst < 0.25);
}

TEST_CASE("technique: specbp@T sets the threshold, a mapping sets every key", "[specbp][config]") {
  test::TempDir tmp("specbp-config");
  const std::string base = "network: seed_mlp\ndataset: {name: mnist}\naccelerator: adagp_ws180\n";
  auto load = [&](const std::string& extra) {
    const std::string path = tmp / "exp.yaml";
    std::ofstream(path) << base << extra;
    return load_experiment(path).sim.technique;
  };
  TechniqueSpec t = load("technique: specbp@0.175\n");
  CHECK(t.kind == "specbp");
  CHECK(t.get<SpecBpSettings>().threshold == 0.175);
  CHECK(t.label() == "specbp@0.175");
  CHECK(t.unit == "own");
  t = load("technique: {kind: specbp, threshold: 0.1, unit: {array: shared}, store: dram}\n");
  CHECK(t.get<SpecBpSettings>().threshold == 0.1);
  CHECK(t.unit == "shared");
  CHECK(t.get<SpecBpSettings>().store == "dram");
  t = load("technique: {kind: specbp, unit: {rows: 6, cols: 5}}\n");
  CHECK(t.unit_rows == 6);
  CHECK(t.unit_cols == 5);
  CHECK(load("technique: bp-sample\n").kind == "bp-sample");
  // The resolved form reads back to the same technique.
  const std::string path = tmp / "exp2.yaml";
  std::ofstream(path) << base << "technique: {kind: specbp, threshold: 0.3, store: dram}\n";
  const ExperimentSpec spec = load_experiment(path);
  std::ofstream(tmp / "resolved.yaml") << resolved_yaml(spec);
  CHECK(load_experiment(tmp / "resolved.yaml").sim.technique == spec.sim.technique);
}
