// Training techniques on a GPU device (a one-device system of kind gpu): ADA-GP's predictor
// runs as kernels on the same GPU, so `compare --techniques` reports what each variant costs
// there; speculative backprop, whose work depends on the data, is refused with one line.
#include <catch2/catch.hpp>

#include <filesystem>
#include <map>
#include <string>

#include "tests/integration/cli_runner.h"

using namespace trainsim;
using namespace trainsim::test;

namespace {

// VGG-16 on CIFAR-10 shapes (no data needed), batch 32 (one micro-batch: ops at batch 32), on
// one H100: one warm-up epoch, then two epochs of ADA-GP's 4:1 phase (4 predicted batches per
// backpropagated one).
std::string h100_experiment(const std::string& dir) {
  return write_experiment(dir,
                          "name: gpu_techniques\nnetwork: vgg16_cifar10\n"
                          "dataset: {name: cifar10, train_limit: 3200, test_limit: 320}\n"
                          "numerics: none\n"
                          "training: {epochs: 3, batch_size: 32,\n"
                          "           optimizer: {kind: sgd, lr: 0.001, momentum: 0.9}}\n"
                          "accelerator: adagp_ws180\n"
                          "technique: {kind: adagp-max, warmup_epochs: 1, schedule: [[4, 1, 0]],\n"
                          "            predictor: {size: 4, channels: 1, lr: 1.0e-4}}\n"
                          "system: {devices: [{device: h100}]}\npipeline: {micro_batches: 1}\n");
}

}  // namespace

TEST_CASE("ADA-GP on a GPU: the predictor runs as kernels on the same GPU, per technique",
          "[gpu][adagp]") {
  const std::string dir = fresh_dir("gpu-techniques");
  const std::string exp = h100_experiment(dir);
  const auto r =
      run_trainsim({"compare", exp, "--techniques", "bp,adagp-max,adagp-efficient,adagp-low",
                    "--out", dir + "/c", "-q"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const auto rows = csv_rows(read_file(dir + "/c/compare.csv"));
  REQUIRE(rows.size() == 4);
  std::map<std::string, std::map<std::string, std::string>> by;
  for (const auto& row : rows) {
    CHECK(std::stod(row.at("seconds")) > 0);
    CHECK(std::stod(row.at("energy_pj")) > 0);
    by[row.at("variant")] = row;
  }
  // A GPU has neither MAX's predictor array nor Efficient's predictor memory: both run the
  // predictor as kernels on the GPU and cost the same; LOW also loads the predictor's
  // weights from memory after each layer and stores its results.
  CHECK(by["adagp-max"].at("seconds") == by["adagp-efficient"].at("seconds"));
  CHECK(by["adagp-max"].at("energy_pj") == by["adagp-efficient"].at("energy_pj"));
  CHECK(std::stod(by["adagp-low"].at("seconds")) >= std::stod(by["adagp-max"].at("seconds")));
  // Per epoch: the warm-up backpropagates and trains the predictor besides (slower than
  // bp); the 4:1 epochs skip backprop in four batches of five (faster).
  const auto bp = csv_rows(read_file(dir + "/c/bp/epochs.csv"));
  const auto gp = csv_rows(read_file(dir + "/c/adagp-max/epochs.csv"));
  REQUIRE(bp.size() == 3);
  REQUIRE(gp.size() == 3);
  CHECK(std::stod(gp[0].at("seconds")) > std::stod(bp[0].at("seconds")));
  CHECK(std::stoi(gp[1].at("phase_gp_batches")) > std::stoi(gp[1].at("phase_bp_batches")));
  CHECK(std::stod(gp[1].at("seconds")) < std::stod(bp[1].at("seconds")));
  CHECK(std::stod(gp[1].at("energy")) < std::stod(bp[1].at("energy")));
}

TEST_CASE("Speculative backprop on a GPU device is refused with one line", "[gpu][specbp]") {
  const std::string dir = fresh_dir("gpu-specbp");
  const auto r = run_trainsim({"compare", h100_experiment(dir), "--techniques", "bp,specbp@0.25",
                               "--out", dir + "/c", "-q"});
  CHECK(r.exit_code == 2);
  CHECK(line_count(r.err) == 1);
  CHECK(r.err.find("specbp") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(dir + "/c"));
}
