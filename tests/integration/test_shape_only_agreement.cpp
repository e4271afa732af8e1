// The shape-only run (numerics: none) against a real training run of the same experiment:
// LeNet-5 (a chain) and ResNet-8 (a graph with batch normalization) on MNIST, trained for real
// through the Trainer with the accelerator session attached, and timed from shapes alone. Same
// batches of each phase, so the same cycles, DRAM bytes and energy, phase by phase: the
// shape-only event order is the numerics' own.
#include <catch2/catch.hpp>

#include <map>
#include <nlohmann/json.hpp>

#include "sim/accel/energy.h"
#include "sim/data/dataset_registry.h"
#include "sim/run/experiment_file.h"
#include "sim/train/shape_only_run.h"
#include "sim/train/trainer.h"
#include "tests/integration/cli_runner.h"

using namespace trainsim;
using namespace trainsim::test;

TEST_CASE("a shape-only run costs what the real training run costs", "[e2e][shape]") {
  require_dataset("mnist");
  for (const char* experiment : {"lenet5_mnist.yaml", "resnet8_fashion.yaml"})
    for (const char* technique :
         {"bp", "{kind: adagp-max, warmup_epochs: 1, predictor: {size: 4, channels: 2}}",
          "{kind: adagp-efficient, warmup_epochs: 1}", "{kind: adagp-low, warmup_epochs: 1}",
          // The Phase GP ablations: forward only (skip), forward + updates (zero, mean), a
          // backprop batch without the predictor (pseudo, oracle).
          "{kind: adagp-efficient, warmup_epochs: 1, phase_gp: skip}",
          "{kind: adagp-efficient, warmup_epochs: 1, phase_gp: zero}",
          "{kind: adagp-efficient, warmup_epochs: 1, phase_gp: mean}",
          "{kind: adagp-low, warmup_epochs: 1, phase_gp: pseudo}",
          // The oracle backprops; the diagnostics' measurement pass is not timed at all.
          "{kind: adagp-max, warmup_epochs: 1, phase_gp: oracle, oracle: {cosine: 0.5}}",
          "{kind: adagp-efficient, warmup_epochs: 1, diagnostics: true}"}) {
      INFO(experiment << ", " << technique);
      // LeNet-5: 20 batches of 32 and a partial one of 8; ResNet-8: 10 of 64 and one of 8; 2
      // epochs: warm-up, then 4:1.
      ExperimentSpec spec =
          load_experiment(std::string(TRAINSIM_SOURCE_DIR) + "/configs/experiments/" + experiment,
                          {"training.epochs=2", "dataset.name=mnist", "dataset.train_limit=648",
                           "dataset.test_limit=100", std::string("technique=") + technique});
      const Dataset data = *load_dataset(spec.dataset);
      std::int64_t real_train = 0, real_eval = 0, real_dram = 0;
      std::array<std::int64_t, 3> real_phases{};
      double real_energy = 0;
      {
        Trainer trainer(spec, data);
        AcceleratorSession session(spec, trainer.network());
        for (int e = 0; e < spec.training.epochs; ++e) trainer.run_epoch();
        real_train = session.record().totals()[0].elapsed_cycles;
        real_eval = session.record().totals()[1].elapsed_cycles;
        real_dram = session.record().totals()[0].stats.dram_bytes();
        real_energy = price(session.record().totals()[0].stats, spec.sim.accelerator).total();
        // Techniques without phases keep no per-phase sums.
        for (std::size_t p = 0; p < session.record().phase_totals().size(); ++p)
          real_phases[p] = session.record().phase_totals()[p].elapsed_cycles;
      }
      spec.numerics = "none";
      AcceleratorSession session(spec);
      const ShapeOnlyResult r = run_shape_only(spec, dataset_shape(spec.dataset), session);
      CHECK(r.train.elapsed_cycles == real_train);
      CHECK(r.eval.elapsed_cycles == real_eval);
      CHECK(static_cast<std::int64_t>(r.train.stats.dram_bytes()) == real_dram);
      CHECK(price(r.train.stats, spec.sim.accelerator).total() == Approx(real_energy));
      if (std::string(technique) != "bp")
        for (int p = 0; p < 3; ++p)
          CHECK(r.kinds[static_cast<std::size_t>(p)].elapsed_cycles ==
                real_phases[static_cast<std::size_t>(p)]);
    }
}

TEST_CASE(
    "training.drop_last leaves the partial batch out of the real run and the shape-only one; "
    "both evaluate in batches of training.eval_batch_size",
    "[e2e][shape]") {
  require_dataset("mnist");
  // LeNet-5 at batch 32 on 648 samples: 20 full batches and one of 8, which drop_last leaves
  // out of both runs; each costs what the other does.
  ExperimentSpec spec =
      load_experiment(std::string(TRAINSIM_SOURCE_DIR) + "/configs/experiments/lenet5_mnist.yaml",
                      {"training.epochs=1", "dataset.name=mnist", "dataset.train_limit=648",
                       "dataset.test_limit=100", "technique=bp", "training.drop_last=true",
                       "training.eval_batch_size=32"});
  REQUIRE(spec.training.batch_size == 32);
  const Dataset data = *load_dataset(spec.dataset);
  std::int64_t real_train = 0, kept_train = 0, real_eval = 0;
  {
    Trainer trainer(spec, data);
    AcceleratorSession session(spec, trainer.network());
    const EpochMetrics m = trainer.run_epoch();
    CHECK(m.batches == 20);
    CHECK(m.train.samples == 640);
    CHECK(m.test.samples == 100);  // evaluation drops nothing
    real_train = session.record().totals()[0].elapsed_cycles;
    real_eval = session.record().totals()[1].elapsed_cycles;
  }
  {
    ExperimentSpec kept = spec;
    kept.training.drop_last = false;
    Trainer trainer(kept, data);
    AcceleratorSession session(kept, trainer.network());
    CHECK(trainer.run_epoch().batches == 21);
    kept_train = session.record().totals()[0].elapsed_cycles;
  }
  CHECK(real_train < kept_train);
  spec.numerics = "none";
  AcceleratorSession session(spec);
  const ShapeOnlyResult r = run_shape_only(spec, dataset_shape(spec.dataset), session);
  CHECK(r.train.elapsed_cycles == real_train);
  // The test set in batches of training.eval_batch_size: three of 32 and one of 4.
  CHECK(r.eval.elapsed_cycles == real_eval);
  REQUIRE(r.eval_per_batch.size() == 2);
  CHECK(r.eval_per_batch.count(32) == 1);
  CHECK(r.eval_per_batch.count(4) == 1);
  REQUIRE(r.batch_counts.size() == 1);
  CHECK(r.batch_counts.begin()->first.second == 32);
  CHECK(r.batch_counts.begin()->second == 20);
  // Fewer samples than one batch: no batch at all is an error naming the keys.
  spec.dataset.train_limit = 20;
  AcceleratorSession small(spec);
  CHECK_THROWS_WITH(
      run_shape_only(spec, dataset_shape(spec.dataset), small),
      Catch::Contains("training.drop_last") && Catch::Contains("make no full batch of 32"));
}

TEST_CASE(
    "training.drop_last on a pipeline and a hype system: one batch fewer, samples/s over "
    "the samples trained",
    "[e2e][shape]") {
  require_dataset("fashion-mnist");
  const std::string dir = fresh_dir("drop-last-systems");
  // 1,000 samples: at batch 64, 15 batches and one of 40; at batch 256, 3 and one of 232.
  for (const auto& [experiment, trained] :
       {std::pair<const char*, double>{"lenet5_fashion_pipeline.yaml", 960},
        std::pair<const char*, double>{"hype_lenet5_fashion.yaml", 768}}) {
    std::map<std::string, double> seconds;
    for (const char* drop : {"false", "true"}) {
      const std::string out = dir + "/" + experiment + drop;
      const auto r = run_trainsim(
          {"run", std::string(TRAINSIM_SOURCE_DIR) + "/configs/experiments/" + experiment, "-o",
           out, "-q", "-s", "numerics=none", "-s", "training.epochs=1", "-s",
           "dataset.train_limit=1000", "-s", std::string("training.drop_last=") + drop});
      INFO(experiment << " drop_last " << drop << ": " << r.err);
      REQUIRE(r.exit_code == 0);
      const auto row = csv_rows(read_file(out + "/epochs.csv")).at(0);
      seconds[drop] = std::stod(row.at("seconds"));
      const double samples = std::string(drop) == "true" ? trained : 1000;
      CHECK(std::stod(row.at("samples_per_second")) ==
            Approx(samples / seconds[drop]).epsilon(1e-5));
    }
    CHECK(seconds["true"] < seconds["false"]);
    // Fewer samples than a batch: `validate` says so before anything runs.
    const auto v = run_trainsim(
        {"validate", std::string(TRAINSIM_SOURCE_DIR) + "/configs/experiments/" + experiment, "-s",
         "numerics=none", "-s", "dataset.train_limit=10", "-s", "training.drop_last=true"});
    CHECK(v.exit_code == 2);
    CHECK(v.err.find("training.drop_last: the 10 training sample(s) make no full batch") !=
          std::string::npos);
  }
}

TEST_CASE("a grouped convolution trains and costs what its shape-only run costs", "[e2e][shape]") {
  // small_cnn with conv2 (8 -> 16 channels) in 4 groups: trained for real (it learns), and
  // timed from shapes alone at the same cost.
  require_dataset("mnist");
  ExperimentSpec spec =
      load_experiment(std::string(TRAINSIM_SOURCE_DIR) + "/configs/experiments/quickstart.yaml",
                      {"network=small_cnn", "network.layers.3.groups=4", "training.batch_size=32",
                       "training.optimizer={kind: adam, lr: 0.003, reduction: mean}",
                       "dataset.train_limit=2000", "dataset.test_limit=500"});
  REQUIRE(spec.network.layers[3].groups == 4);
  const Dataset data = *load_dataset(spec.dataset);
  std::int64_t real_train = 0, real_eval = 0;
  {
    Trainer trainer(spec, data);
    AcceleratorSession session(spec, trainer.network());
    const EpochMetrics m = trainer.run_epoch();
    CHECK(m.test.accuracy > 0.5);  // chance is 0.1; 63% measured
    real_train = session.record().totals()[0].elapsed_cycles;
    real_eval = session.record().totals()[1].elapsed_cycles;
  }
  spec.numerics = "none";
  AcceleratorSession session(spec);
  const ShapeOnlyResult r = run_shape_only(spec, dataset_shape(spec.dataset), session);
  CHECK(r.train.elapsed_cycles == real_train);
  CHECK(r.eval.elapsed_cycles == real_eval);
}

TEST_CASE("trainsim run / compare with numerics: none, its errors leave nothing behind",
          "[e2e][shape]") {
  const std::string exp = std::string(TRAINSIM_SOURCE_DIR) + "/configs/experiments/adagp_zoo.yaml";
  const std::string dir = fresh_dir("shape-only-cli");
  CliResult r = run_trainsim({"run", exp, "--out", dir + "/run", "--set", "training.epochs=12"});
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  for (const char* f :
       {"config.resolved.yaml", "epochs.csv", "phases.csv", "batch_layers.csv", "stats.json"})
    CHECK(exists(dir + "/run/" + f));
  CHECK(r.out.find("shape only, no accuracy") != std::string::npos);
  // epochs.csv: a batches column per kind of batch the technique declares, and only those.
  const std::string adagp_epochs = read_file(dir + "/run/epochs.csv");
  CHECK(adagp_epochs.find(",backprop_batches,phase_bp_batches,phase_gp_batches,cycles,") !=
        std::string::npos);
  r = run_trainsim(
      {"run", exp, "--out", dir + "/bp", "--set", "training.epochs=2", "--set", "technique=bp"});
  REQUIRE(r.exit_code == 0);
  const std::string bp_epochs = read_file(dir + "/bp/epochs.csv");
  CHECK(bp_epochs.find(",backprop_batches,cycles,") != std::string::npos);
  CHECK(bp_epochs.find("phase_") == std::string::npos);
  CHECK(read_file(dir + "/bp/stats.json").find("phase_gp") == std::string::npos);

  r = run_trainsim({"compare", exp, "--techniques", "bp,adagp-max,adagp-low", "--out", dir + "/cmp",
                    "--set", "training.epochs=12", "--set", "network=mobilenetv2_imagenet", "--set",
                    "dataset.name=imagenet", "--set", "dataset.train_limit=6400"});
  REQUIRE(r.exit_code == 0);
  const std::string csv = read_file(dir + "/cmp/compare.csv");
  CHECK(csv.find("memory_energy_rel") != std::string::npos);
  CHECK(r.out.find("n/a") != std::string::npos);

  struct Bad {
    std::vector<std::string> args;
    const char* message;
  };
  const Bad bad[] = {
      {{"train", exp}, "nothing to train: use trainsim run"},
      {{"run", exp, "--set", "technique=specbp"}, "cannot run with numerics: none"},
      {{"run", exp, "--set", "numerics=float"}, "dataset 'cifar10' is shape only"},
      {{"run", exp, "--set", "numerics=float", "--set", "dataset.name=mnist", "--set",
        "network=inceptionv3_cifar10"},
       "can only be timed, not trained"},
      {{"run", exp, "--set", "dataset.name=imagenet"}, "expects input 3x32x32"},
      {{"run", exp, "--set", "numerics=maybe"}, "must be one of float, none"},
  };
  for (const Bad& b : bad) {
    std::vector<std::string> args = b.args;
    args.insert(args.end(), {"--out", dir + "/bad"});
    r = run_trainsim(args);
    INFO(r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find(b.message) != std::string::npos);
    CHECK_FALSE(exists(dir + "/bad"));
  }
}

TEST_CASE("cycle fidelity: shape-only and system runs on the clocked array cost what fast does",
          "[e2e][shape][cycle]") {
  require_dataset("mnist");
  const std::string root = std::string(TRAINSIM_SOURCE_DIR) + "/configs/experiments/";
  // The session of a shape-only run at cycle fidelity runs its array ops on the clocked
  // array, on operand values it makes per op shape. With one unit its figures are the fast
  // model's exactly (the cycle-vs-fast agreement, here over a whole schedule). ADA-GP-MAX's
  // two arrays share the DRAM channel: the fast model books an op's traffic as one transfer,
  // the clocked one tile by tile, so their contention differs a little (docs/adagp.md).
  for (const char* dataflow : {"ws", "rs"})
    for (const char* technique : {"bp", "{kind: adagp-max, warmup_epochs: 1}"}) {
      INFO(dataflow << ", " << technique);
      std::vector<std::string> set = {"numerics=none",
                                      "training.epochs=2",
                                      "dataset.train_limit=200",
                                      "dataset.test_limit=50",
                                      "dataset.name=mnist",
                                      std::string("dataflow=") + dataflow,
                                      std::string("technique=") + technique};
      if (std::string(dataflow) == "rs") set.push_back("accelerator=eyeriss_like");
      ExperimentSpec fast = load_experiment(root + "lenet5_mnist.yaml", set);
      set.push_back("fidelity=cycle");
      ExperimentSpec cycle = load_experiment(root + "lenet5_mnist.yaml", set);
      AcceleratorSession fs(fast), cs(cycle);
      const ShapeOnlyResult a = run_shape_only(fast, dataset_shape(fast.dataset), fs);
      const ShapeOnlyResult b = run_shape_only(cycle, dataset_shape(cycle.dataset), cs);
      CHECK(cs.fidelity() == Fidelity::kCycle);
      CHECK(cs.operand_shapes() > 0);  // the clocked array computed on them
      CHECK(fs.operand_shapes() == 0);
      CHECK(b.eval.elapsed_cycles == a.eval.elapsed_cycles);
      if (std::string(technique) == "bp") {
        CHECK(b.train.elapsed_cycles == a.train.elapsed_cycles);
        CHECK(b.train.stats.dram_bytes() == a.train.stats.dram_bytes());
        CHECK(b.train.energy.total() == a.train.energy.total());
      } else {
        CHECK(b.train.stats.dram_bytes() == a.train.stats.dram_bytes());
        CHECK(static_cast<double>(b.train.elapsed_cycles) ==
              Approx(static_cast<double>(a.train.elapsed_cycles)).epsilon(0.02));
      }
    }
  // A system's accelerator stages are costed on clocked nodes too: the same records.
  const std::string dir = fresh_dir("cycle-system");
  for (const char* f : {"fast", "cycle"}) {
    const CliResult r = run_trainsim(
        {"run", root + "lenet5_fashion_pipeline.yaml", "--out", dir + "/" + f, "-q", "--set",
         "dataset.name=mnist", "--set", "dataset.train_limit=256", "--set", "dataset.test_limit=64",
         "--set", "training.epochs=1", "--set", std::string("fidelity=") + f});
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
  }
  CHECK(read_file(dir + "/cycle/stats.json") == read_file(dir + "/fast/stats.json"));
  CHECK(read_file(dir + "/cycle/epochs.csv") == read_file(dir + "/fast/epochs.csv"));
  CHECK(read_file(dir + "/cycle/config.resolved.yaml").find("fidelity: cycle") !=
        std::string::npos);
  // With ADA-GP-MAX's two arrays on every stage the clocked nodes' per-transfer contention
  // shows: the stage costs, so the epoch, differ a little from the fast model's.
  std::map<std::string, double> seconds;
  for (const char* f : {"fast", "cycle"}) {
    const std::string out = dir + "/max-" + f;
    const CliResult r = run_trainsim(
        {"run", root + "lenet5_fashion_pipeline.yaml", "--out", out, "-q", "--set",
         "dataset.name=mnist", "--set", "dataset.train_limit=256", "--set", "dataset.test_limit=64",
         "--set", "training.epochs=2", "--set", "technique={kind: adagp-max, warmup_epochs: 1}",
         "--set", std::string("fidelity=") + f});
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    seconds[f] = nlohmann::json::parse(read_file(out + "/stats.json"))["totals"]["train_seconds"];
  }
  CHECK(seconds["cycle"] != seconds["fast"]);
  CHECK(seconds["cycle"] == Approx(seconds["fast"]).epsilon(0.03));
}
