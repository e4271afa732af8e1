// Training techniques on a GPU device (a one-device system of kind gpu): ADA-GP's predictor
// runs as kernels on the same GPU, so `compare --techniques` reports what each variant costs
// there; speculative backprop, whose work depends on the data, is timed from the ops its
// numerics issue, its second unit a second stream of the GPU (sim/train/model_session.h).
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

namespace {

// The quickstart (the seed MLP on MNIST, batch 15, sgd as the authors train it) on a subset,
// on one device of the system, the technique's per-sample steps unbatched.
std::string specbp_experiment(const std::string& dir, const std::string& device,
                              const std::string& unit = "own") {
  return write_experiment(dir,
                          "name: specbp_device\nnetwork: seed_mlp\naccelerator: adagp_ws180\n"
                          "dataset: {name: mnist, train_limit: 600, test_limit: 200}\n"
                          "training: {epochs: 1, batch_size: 15, seed: 1,\n"
                          "           optimizer: {kind: sgd, lr: 0.01, reduction: sum, clip: 5}}\n"
                          "technique: {kind: specbp, threshold: 0.25, unit: {array: " +
                              unit + "}}\nsystem: {devices: [{device: " + device +
                              "}]}\npipeline: {micro_batches: 1}\n");
}

// Per variant: its compare.csv row and its step time per sample (table_step.csv, us).
struct Variants {
  std::map<std::string, std::map<std::string, std::string>> row;
  std::map<std::string, double> step_us;
};

Variants compare_techniques(const std::string& exp, const std::string& out,
                            const std::string& techniques) {
  const auto r = run_trainsim({"compare", exp, "--techniques", techniques, "--out", out, "-q"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  Variants v;
  for (const auto& row : csv_rows(read_file(out + "/compare.csv"))) v.row[row.at("variant")] = row;
  const auto steps = csv_rows(read_file(out + "/table_step.csv"));
  REQUIRE(steps.size() == 1);
  for (const auto& [name, cell] : steps[0])
    if (name != "epoch") v.step_us[name] = std::stod(cell);
  return v;
}

}  // namespace

TEST_CASE(
    "Speculative backprop on a GPU: the speculative pass is a second stream beside the "
    "forward pass",
    "[gpu][specbp]") {
  require_dataset("mnist");
  const std::string dir = fresh_dir("gpu-specbp");
  const Variants v = compare_techniques(specbp_experiment(dir, "h100"), dir + "/c",
                                        "bp-sample,specbp@0.25,specbp@0");
  for (const auto& [name, row] : v.row) {
    INFO(name);
    CHECK(std::stod(row.at("seconds")) > 0);
    CHECK(std::stod(row.at("energy_pj")) > 0);
  }
  // Batch-1 kernels fill few of the H100's SMs, so the speculative backward pass of the stored
  // sample runs beside the next sample's forward pass: a hit step is shorter than bp-sample's
  // forward-then-backward step. At 0.25 every step hits (docs/specbp.md).
  CHECK(v.step_us.at("specbp@0.25") < 0.8 * v.step_us.at("bp-sample"));
  const auto hits = csv_rows(read_file(dir + "/c/table_hit_rate.csv"));
  REQUIRE(hits.size() == 1);
  CHECK(std::stod(hits[0].at("specbp@0.25")) == 1.0);
  // Threshold 0 misses every step: it pays the discarded pass besides the normal backward.
  CHECK(std::stod(hits[0].at("specbp@0")) == 0.0);
  CHECK(v.step_us.at("specbp@0") > v.step_us.at("bp-sample"));
  // The run says how it was timed, and its timeline shows the device's two streams.
  const std::string stats = read_file(dir + "/c/specbp@0.25/stats.json");
  CHECK(stats.find("\"timing\": \"numerics\"") != std::string::npos);
  const std::string trace = read_file(dir + "/c/specbp@0.25/timeline.json");
  CHECK(trace.find("second unit") != std::string::npos);
  CHECK(trace.find("\"tid\": 1") != std::string::npos);
  // A technique without a plan of batch kinds reports its batches as backprop batches.
  const std::string epochs = read_file(dir + "/c/specbp@0.25/epochs.csv");
  CHECK(epochs.find(",backprop_batches,idle_fraction,") != std::string::npos);
  CHECK(epochs.find("phase_") == std::string::npos);
  // A GPU has no PE array to utilize: compare's table says "-", not 0.0%.
  const auto shown = run_trainsim({"compare", specbp_experiment(dir, "h100"), "--techniques",
                                   "bp-sample", "--out", dir + "/shown"});
  REQUIRE(shown.exit_code == 0);
  const std::size_t row = shown.out.find("\nbp-sample ");
  REQUIRE(row != std::string::npos);
  const std::string line = shown.out.substr(row + 1, shown.out.find('\n', row + 1) - row - 1);
  CHECK(line.find('%') == line.rfind('%'));  // the accuracy's only
  CHECK(line.find("      - ") != std::string::npos);
}

TEST_CASE("Speculative backprop on a device that cannot overlap it gains nothing",
          "[gpu][specbp]") {
  require_dataset("mnist");
  const std::string dir = fresh_dir("gpu-specbp-turns");
  // Shared: the speculative pass runs after the forward pass on the one stream.
  const Variants shared = compare_techniques(specbp_experiment(dir, "h100", "shared"),
                                             dir + "/shared", "bp-sample,specbp@0.25");
  CHECK(shared.step_us.at("specbp@0.25") >= shared.step_us.at("bp-sample"));
  // An FPGA runs one op at a time (occupancy 1): its two streams take turns.
  const Variants fpga = compare_techniques(specbp_experiment(dir, "s10_gx2500"), dir + "/fpga",
                                           "bp-sample,specbp@0.25");
  CHECK(fpga.step_us.at("specbp@0.25") >= fpga.step_us.at("bp-sample"));
}

TEST_CASE("One accelerator as a one-device system times speculative backprop as a single run",
          "[gpu][specbp]") {
  require_dataset("mnist");
  const std::string dir = fresh_dir("specbp-one-device");
  const std::string exp = specbp_experiment(dir, "adagp_ws180");
  const Variants system = compare_techniques(exp, dir + "/system", "bp-sample,specbp@0.25");
  // The same experiment without its system: the experiment's accelerator (the same preset).
  std::string body = read_file(exp);
  body = body.substr(0, body.find("system:"));
  const Variants single =
      compare_techniques(write_experiment(fresh_dir("specbp-one-device-1"), body), dir + "/single",
                         "bp-sample,specbp@0.25");
  for (const std::string t : {"bp-sample", "specbp@0.25"}) {
    INFO(t);
    CHECK(system.row.at(t).at("cycles") == single.row.at(t).at("cycles"));
    CHECK(system.row.at(t).at("energy_pj") == single.row.at(t).at("energy_pj"));
    CHECK(system.row.at(t).at("dram_bytes") == single.row.at(t).at("dram_bytes"));
    CHECK(system.step_us.at(t) == single.step_us.at(t));
  }
}

TEST_CASE("A technique that depends on the data runs on one device only, with numerics",
          "[gpu][specbp]") {
  const std::string dir = fresh_dir("specbp-refused");
  const std::string two = write_experiment(
      dir,
      "name: two\nnetwork: seed_mlp\naccelerator: adagp_ws180\ndataset: {name: mnist}\n"
      "training: {epochs: 1, batch_size: 15}\ntechnique: specbp@0.25\n"
      "system: {devices: [{device: h100}, {device: h100}]}\npipeline: {micro_batches: 1}\n");
  require_clean_failure(run_trainsim({"run", two, "--out", dir + "/a"}), dir + "/a",
                        {"specbp@0.25", "2 devices"});
  require_clean_failure(run_trainsim({"run", two, "-s", "system.devices=[{device: h100}]", "-s",
                                      "numerics=none", "--out", dir + "/b"}),
                        dir + "/b", {"numerics: none"});
  require_clean_failure(run_trainsim({"run", two, "-s", "system.devices=[{device: h100}]",
                                      "--chakra", dir + "/ch", "--out", dir + "/c"}),
                        dir + "/c", {"--chakra"});
  // An accelerator device checks the technique's store against its buffer as a single run
  // does: LeNet-5's passes (315,920 bytes) do not fit adagp_ws180's 108 KiB.
  require_dataset("mnist");
  require_clean_failure(
      run_trainsim({"run", two, "-s", "network=lenet5", "-s", "training.batch_size=16", "-s",
                    "system.devices=[{device: adagp_ws180}]", "--out", dir + "/d"}),
      dir + "/d", {"315920 bytes", "technique.store: dram"});
}
