// ADA-GP end to end on the real MNIST digits: the three hardware variants train identically,
// time and price differently, and report per phase.
#include <catch2/catch.hpp>
#include <map>
#include <nlohmann/json.hpp>

#include "tests/integration/cli_runner.h"

using namespace trainsim::test;
using nlohmann::json;

namespace {

// LeNet-5 with a small predictor (4 x 4 maps, 2 channels): the regime ADA-GP is made for,
// where predicting a layer's gradients costs less than its backward pass. (For the seed MLP
// the predictor's 785 outputs per unit outweigh the whole model; see docs/adagp.md.)
const std::string kLenet =
    std::string(TRAINSIM_SOURCE_DIR) + "/configs/experiments/lenet5_mnist.yaml";

json run(const std::string& dir, const std::string& technique, int epochs) {
  const std::string t = technique == "bp"
                            ? technique
                            : "{kind: " + technique + ", predictor: {size: 4, channels: 2}}";
  const CliResult r = run_trainsim({"run", kLenet, "--out", dir, "--set", "technique=" + t, "--set",
                                    "training.epochs=" + std::to_string(epochs), "--set",
                                    "dataset.train_limit=1920"});
  INFO("stdout: " << r.out << "\nstderr: " << r.err);
  REQUIRE(r.exit_code == 0);
  return json::parse(read_file(dir + "/stats.json"));
}

std::int64_t cycles(const json& s, int epoch) {
  return s["epochs"][epoch]["sim"]["train"]["elapsed_cycles"].get<std::int64_t>();
}

}  // namespace

TEST_CASE("ADA-GP's hardware variants: same training, MAX <= Efficient <= LOW in time",
          "[e2e][adagp]") {
  require_dataset("mnist");
  const std::string dir = fresh_dir("adagp-variants");
  const json bp = run(dir + "/bp", "bp", 2);
  const json max = run(dir + "/max", "adagp-max", 2);
  const json eff = run(dir + "/eff", "adagp-efficient", 2);
  const json low = run(dir + "/low", "adagp-low", 2);
  // Numerics do not depend on the hardware.
  CHECK(max["epochs"][1]["test"] == eff["epochs"][1]["test"]);
  CHECK(eff["epochs"][1]["test"] == low["epochs"][1]["test"]);
  // Epoch 1 is the warm-up (backprop + predictor training), epoch 2 alternates GP and BP.
  const auto& ph = eff["technique_stats"]["phases"];
  CHECK(ph["warmup"]["elapsed_cycles"].get<std::int64_t>() > 0);
  CHECK(ph["bp"]["elapsed_cycles"].get<std::int64_t>() > 0);
  CHECK(ph["gp"]["elapsed_cycles"].get<std::int64_t>() > 0);
  // The warm-up costs more than plain backprop (the predictor trains), the Phase GP epoch
  // less (most batches skip the backward pass).
  CHECK(cycles(eff, 0) > cycles(bp, 0));
  CHECK(cycles(eff, 1) < cycles(bp, 1));
  CHECK(cycles(max, 1) <= cycles(eff, 1));
  CHECK(cycles(eff, 1) <= cycles(low, 1));
  // LOW reloads the predictor's weights from DRAM; MAX adds PEs, MAX and Efficient memory.
  CHECK(low["totals"]["train"]["stats"]["dram_bytes"].get<std::int64_t>() >
        eff["totals"]["train"]["stats"]["dram_bytes"].get<std::int64_t>());
  CHECK(max["technique_stats"]["extra_pes"].get<std::int64_t>() == 180);
  CHECK(eff["technique_stats"]["extra_pes"].get<std::int64_t>() == 0);
  CHECK(eff["technique_stats"]["extra_storage_bytes"].get<std::int64_t>() > 0);
  CHECK(low["technique_stats"]["extra_storage_bytes"].get<std::int64_t>() == 0);
  // Each run reports the predictor's quality per epoch and layer; bp has no predictor.
  CHECK(exists(dir + "/eff/predictor.csv"));
  CHECK_FALSE(exists(dir + "/bp/predictor.csv"));
  CHECK(eff["epochs"][1]["predictor"].size() == 5);
  CHECK_FALSE(bp["epochs"][1].contains("predictor"));
}

TEST_CASE("ADA-GP reports per-layer prediction error, the predictions carry information",
          "[e2e][adagp]") {
  require_dataset("mnist");
  // fresh_dir makes the directory; the run writes below it (train refuses an existing one).
  const std::string dir = fresh_dir("adagp-predictor") + "/run";
  // The default predictor and schedule on the 8,000 training digits, 1 warm-up epoch.
  const CliResult r =
      run_trainsim({"train", kLenet, "--out", dir, "--quiet", "--set", "training.epochs=3", "--set",
                    "technique={kind: adagp-efficient, warmup_epochs: 1}"});
  INFO("stdout: " << r.out << "\nstderr: " << r.err);
  REQUIRE(r.exit_code == 0);
  const auto rows = csv_rows(read_file(dir + "/predictor.csv"));
  REQUIRE(rows.size() == 15);  // 3 epochs x LeNet-5's 5 layers with weights
  const std::vector<std::string> layers = {"conv1", "conv2", "fc1", "fc2", "fc3"};
  std::map<std::string, double> cosine;  // per layer, summed over the epochs after warm-up
  double mean = 0;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto& row = rows[i];
    INFO("row " << i << ": " << row.at("name"));
    CHECK(row.at("name") == layers[i % 5]);
    const int epoch = std::stoi(row.at("epoch"));
    // Warm-up measures every batch (8000 / 32); 4:1 epochs measure their Phase BP batches.
    CHECK(std::stoi(row.at("batches")) == (epoch == 1 ? 250 : 50));
    const double mse = std::stod(row.at("mse")), gain = std::stod(row.at("gain"));
    CHECK(mse > 0);
    CHECK(mse < 2);  // in units of the gradients' RMS: 1 is about as bad as predicting 0
    CHECK(std::stod(row.at("mape")) > 0);
    CHECK(gain >= 0);
    CHECK(gain <= 1);
    if (epoch > 1) {
      cosine[row.at("name")] += std::stod(row.at("cosine")) / 2;
      mean += std::stod(row.at("cosine")) / 10;
    }
  }
  // A prediction unrelated to the true gradient (wrong layout, untrained, shuffled) has a
  // cosine of 0 +- about 0.01 over these 100 batches. Measured: 0.04-0.11 per layer, 0.08 mean.
  for (const auto& [name, c] : cosine) {
    INFO(name);
    CHECK(c > 0.01);
  }
  CHECK(mean > 0.04);
  const json stats = json::parse(read_file(dir + "/stats.json"));
  CHECK(stats["epochs"][2]["predictor"][4]["name"] == "fc3");
  CHECK(stats["epochs"][2]["predictor"][4]["batches"] == 50);
}
