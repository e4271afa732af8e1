// End-to-end training on the real datasets through the real binary: the accuracy targets
// of the foundation issue, determinism, and the files a run leaves. Needs the data that
// ./test.sh fetches (tools/fetch_data.sh).
#include <algorithm>
#include <catch2/catch.hpp>

#include "sim/core/paths.h"
#include "tests/integration/cli_runner.h"

using namespace trainsim;
using namespace trainsim::test;

namespace {

const std::string kExperiments = std::string(TRAINSIM_SOURCE_DIR) + "/configs/experiments/";

/// Trains and returns the run's epochs.csv.
std::string train(const std::string& experiment, const std::string& out,
                  std::vector<std::string> extra = {}) {
  std::vector<std::string> args{"train", kExperiments + experiment, "--out", out};
  args.insert(args.end(), extra.begin(), extra.end());
  const auto r = run_trainsim(args);
  INFO("stdout: " << r.out << "\nstderr: " << r.err);
  REQUIRE(r.exit_code == 0);
  return read_file(out + "/epochs.csv");
}

}  // namespace

TEST_CASE("seed_mlp on mnist: >= 85% after 1 epoch and >= 89% after 3", "[e2e][accuracy]") {
  require_dataset("mnist");
  const std::string out = fresh_dir("e2e-mlp-mnist") + "/run";
  const std::string csv = train("quickstart.yaml", out, {"--set", "training.epochs=3"});
  const double acc1 = epochs_csv_value(csv, 1, "test_accuracy");
  const double acc3 = epochs_csv_value(csv, 3, "test_accuracy");
  INFO("test accuracy after epoch 1: " << acc1 << ", after epoch 3: " << acc3);
  CHECK(acc1 >= 0.85);
  CHECK(acc3 >= 0.89);
}

TEST_CASE("seed_mlp on fashion-mnist: >= 80% after 1 epoch (mean of 5 seeds)", "[e2e][accuracy]") {
  // One epoch of batch-15 SGD ends on a noisy step: over seeds the accuracy spreads by about
  // +-2 points (docs/validation.md), so the target is checked on the mean of five seeds
  // rather than on one seed picked to pass.
  require_dataset("fashion-mnist");
  const std::string dir = fresh_dir("e2e-mlp-fashion");
  double sum = 0, worst = 1;
  for (int seed = 1; seed <= 5; ++seed) {
    const std::string csv = train("mlp_fashion.yaml", dir + "/s" + std::to_string(seed),
                                  {"--set", "training.seed=" + std::to_string(seed)});
    const double acc = epochs_csv_value(csv, 1, "test_accuracy");
    sum += acc;
    worst = std::min(worst, acc);
  }
  INFO("mean test accuracy after 1 epoch over seeds 1-5: " << sum / 5 << ", worst " << worst);
  CHECK(sum / 5 >= 0.80);
  CHECK(worst >= 0.75);
}

TEST_CASE("lenet5 on mnist: >= 96% within 5 epochs", "[e2e][accuracy]") {
  require_dataset("mnist");
  const std::string out = fresh_dir("e2e-lenet5-mnist") + "/run";
  const std::string csv = train("lenet5_mnist.yaml", out);
  double best = 0;
  for (int e = 1; e <= 5; ++e) best = std::max(best, epochs_csv_value(csv, e, "test_accuracy"));
  const double last = epochs_csv_value(csv, 5, "test_accuracy");
  INFO("best test accuracy within 5 epochs: " << best << ", after epoch 5: " << last);
  CHECK(best >= 0.96);
  CHECK(last >= 0.95);  // and training is stable, not a lucky peak
}

TEST_CASE("The same experiment and seed give byte-identical results", "[e2e][determinism]") {
  require_dataset("mnist");
  const std::string dir = fresh_dir("e2e-determinism");
  const std::vector<std::string> extra{"--set", "training.epochs=2", "--set",
                                       "dataset.train_limit=3000"};
  train("quickstart.yaml", dir + "/a", extra);
  train("quickstart.yaml", dir + "/b", extra);
  // (config.resolved.yaml differs only in output.dir, so it is not compared.)
  for (const char* f : {"stats.json", "epochs.csv"}) {
    INFO(f);
    CHECK(read_file(dir + "/a/" + std::string(f)) == read_file(dir + "/b/" + std::string(f)));
  }
  // A different seed changes the numbers (so the check above is not vacuous).
  train("quickstart.yaml", dir + "/c",
        {"--set", "training.epochs=2", "--set", "dataset.train_limit=3000", "--set",
         "training.seed=2"});
  CHECK(read_file(dir + "/a/epochs.csv") != read_file(dir + "/c/epochs.csv"));
  // A CNN too, on one thread and on two: its reductions once depended on heap alignment
  // (see sim/core/aligned.h), and its layers now run in parallel.
  for (const char* threads : {"1", "2"}) {
    INFO(threads << " thread(s)");
    const std::vector<std::string> cnn{"--set", "training.epochs=1",
                                       "--set", "dataset.train_limit=1000",
                                       "--set", std::string("training.threads=") + threads};
    train("lenet5_mnist.yaml", dir + "/d" + threads, cnn);
    train("lenet5_mnist.yaml", dir + "/e" + threads, cnn);
    CHECK(read_file(dir + "/d" + threads + "/stats.json") ==
          read_file(dir + "/e" + threads + "/stats.json"));
  }
}

TEST_CASE("Results are the same bytes whatever the thread count (1 to 3)", "[e2e][determinism]") {
  // Every parallel loop is cut by its work, not by the thread count, and reductions sum
  // their partial results in a fixed order (sim/core/parallel.h), so the thread count is
  // a speed setting only. LeNet-5 covers padded convolutions, max pooling and dense layers;
  // small_cnn strided convolutions, average pooling and leaky ReLU; the evaluation batches
  // of 500 split every layer. The graph networks: ResNet-8 (batch normalization, residual
  // adds, global average pooling, the readers' gradient sums) and DenseNet-BC-40
  // (concatenations, average-pooling transitions).
  require_dataset("mnist");
  const std::string dir = fresh_dir("e2e-threads");
  for (const std::string exp :
       {"lenet5_mnist.yaml", "quickstart.yaml", "resnet8_fashion.yaml", "densenet40"}) {
    std::vector<std::string> args{"--set", "training.epochs=1",
                                  "--set", "dataset.train_limit=1200",
                                  "--set", "dataset.test_limit=1000"};
    if (exp == "quickstart.yaml") {
      for (const char* a : {"--set", "network=small_cnn", "--set", "training.batch_size=32"})
        args.push_back(a);
    }
    std::string file = exp;
    if (exp == "resnet8_fashion.yaml" || exp == "densenet40") {
      file = "resnet8_fashion.yaml";
      args = {"--set", "training.epochs=1",       "--set", "dataset.name=mnist",
              "--set", "dataset.train_limit=320", "--set", "dataset.test_limit=200",
              "--set", "training.batch_size=32"};
      if (exp == "densenet40")
        for (const char* a : {"--set", "network=densenet40_fashion"}) args.push_back(a);
    }
    std::string first;
    for (const char* threads : {"1", "2", "3"}) {
      INFO(exp << " on " << threads << " thread(s)");
      std::vector<std::string> a = args;
      a.push_back("--set");
      a.push_back(std::string("training.threads=") + threads);
      const std::string out = dir + "/" + exp + threads;
      train(file, out, a);
      const std::string stats = read_file(out + "/stats.json");
      if (first.empty()) first = stats;
      CHECK(stats == first);
      CHECK(read_file(out + "/timing.json").find("\"threads\": " + std::string(threads)) !=
            std::string::npos);
    }
  }
}

TEST_CASE("Training gives the same bytes without the wide vector paths",
          "[e2e][determinism][isa]") {
  // Results must not depend on the vector width the compiler picked (issue 28):
  // TRAINSIM_KERNELS=baseline runs the numerics' kernels as built for plain x86-64, every
  // 8-float vector two SSE operations and every multiply-add libm's fma (sim/nn/kernels.h),
  // against this build's AVX2 or AVX-512 ones. LeNet-5 on a slice of MNIST covers both direct
  // convolution layouts, pooling and dense layers; the seed MLP trains its whole epoch. The
  // README's five LeNet-5 epochs, minutes on the baseline kernels: tools/bench_isa.sh.
  require_dataset("mnist");
  const std::string dir = fresh_dir("e2e-isa");
  struct Case {
    const char* experiment;
    std::vector<std::string> extra;
  };
  const Case cases[] = {{"lenet5_mnist.yaml",
                         {"--set", "training.epochs=1", "--set", "dataset.train_limit=1000",
                          "--set", "dataset.test_limit=500"}},
                        {"quickstart.yaml", {}}};
  for (const Case& c : cases) {
    INFO(c.experiment);
    std::string csv[2], stats[2];
    for (int baseline = 0; baseline < 2; ++baseline) {
      const std::string out =
          dir + "/" + c.experiment + (baseline ? std::string(".baseline") : std::string(".native"));
      std::vector<std::string> args{"train", kExperiments + c.experiment, "--out", out};
      args.insert(args.end(), c.extra.begin(), c.extra.end());
      const auto r =
          run_trainsim(args, {baseline ? "TRAINSIM_KERNELS=baseline" : "TRAINSIM_KERNELS="});
      INFO("stderr: " << r.err);
      REQUIRE(r.exit_code == 0);
      csv[baseline] = read_file(out + "/epochs.csv");
      stats[baseline] = read_file(out + "/stats.json");
    }
    CHECK(csv[0] == csv[1]);
    CHECK(stats[0] == stats[1]);
  }
  // A kernel set that does not exist is bad input, reported before anything is written.
  const std::string out = dir + "/unknown";
  const auto r = run_trainsim({"train", kExperiments + "quickstart.yaml", "--out", out},
                              {"TRAINSIM_KERNELS=avx1024"});
  require_clean_failure(r, out, {"TRAINSIM_KERNELS", "avx1024", "native", "baseline"});
}

TEST_CASE("config.resolved.yaml reproduces the run it came from", "[e2e][config]") {
  require_dataset("mnist");
  const std::string dir = fresh_dir("e2e-resolved");
  train("quickstart.yaml", dir + "/a",
        {"--set", "dataset.train_limit=1500", "--set", "training.optimizer.lr=0.02"});
  const auto r = run_trainsim({"train", dir + "/a/config.resolved.yaml", "--out", dir + "/b"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(read_file(dir + "/a/stats.json") == read_file(dir + "/b/stats.json"));
  CHECK(read_file(dir + "/a/epochs.csv") == read_file(dir + "/b/epochs.csv"));
}

TEST_CASE("A run prints its epochs and summary, with no progress bar when piped", "[e2e][cli]") {
  require_dataset("mnist");
  const std::string out = fresh_dir("e2e-output") + "/run";
  const auto r = run_trainsim({"train", kExperiments + "quickstart.yaml", "--out", out, "--set",
                               "dataset.train_limit=600"});
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("train_loss") != std::string::npos);
  CHECK(r.out.find("threads ") != std::string::npos);  // the header names the thread count
  CHECK(r.out.find("final: test accuracy") != std::string::npos);
  CHECK(r.err.find('\r') == std::string::npos);
  CHECK(exists(out + "/timing.json"));
  CHECK(read_file(out + "/stats.json").find("\"final\"") != std::string::npos);
}
