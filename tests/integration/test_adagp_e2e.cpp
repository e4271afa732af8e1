// ADA-GP end to end on the real MNIST digits: the three hardware variants train identically,
// time and price differently, and report per phase.
#include <catch2/catch.hpp>
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
}
