// `trainsim train`: numerics-only training of an experiment.
#include <chrono>
#include <cstdio>

#include "sim/cli/arg_parse.h"
#include "sim/cli/commands.h"
#include "sim/cli/progress_bar.h"
#include "sim/config/experiment_config.h"
#include "sim/core/error.h"
#include "sim/data/dataset_registry.h"
#include "sim/report/staged_dir.h"
#include "sim/report/train_report.h"
#include "sim/train/trainer.h"

namespace po = boost::program_options;

namespace trainsim {

int cmd_train(const std::vector<std::string>& args) {
  po::options_description opts("train");
  opts.add_options()("experiment", po::value<std::string>()->required(), "experiment YAML")(
      "out", po::value<std::string>(), "output directory")(
      "set", po::value<std::vector<std::string>>()->composing(), "override KEY=VALUE")(
      "quiet", po::bool_switch(), "only the summary");
  po::positional_options_description pos;
  pos.add("experiment", 1);
  const auto vm = parse_args("train", args, opts, pos);

  std::vector<std::string> overrides;
  if (vm.count("set")) overrides = vm["set"].as<std::vector<std::string>>();
  // --out is an override like any other, so config.resolved.yaml records where results went.
  if (vm.count("out")) overrides.push_back("output.dir=" + vm["out"].as<std::string>());
  const bool quiet = vm["quiet"].as<bool>();

  // Everything that can fail on bad input happens before the output directory exists.
  const ExperimentSpec spec = load_experiment(vm["experiment"].as<std::string>(), overrides);
  const auto t_load = std::chrono::steady_clock::now();
  const Dataset data = load_dataset(spec.dataset);
  const double load_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t_load).count();
  Trainer trainer(spec, data);

  StagedDir out(spec.output.dir);
  write_text_file(out.file("config.resolved.yaml"), resolved_yaml(spec));
  if (!quiet) {
    std::printf(
        "trainsim train: %s | network %s (%lld params) | dataset %s (%lld train, %lld test)\n",
        spec.name.c_str(), spec.network.name.c_str(),
        static_cast<long long>(trainer.network().param_count()), data.name.c_str(),
        static_cast<long long>(data.train.count), static_cast<long long>(data.test.count));
    std::printf("optimizer %s lr %g (%s, clip %g) | batch %d | %d epoch(s) | seed %llu\n",
                spec.training.optimizer.kind.c_str(), spec.training.optimizer.lr,
                spec.training.optimizer.reduction.c_str(), spec.training.optimizer.clip,
                spec.training.batch_size, spec.training.epochs,
                static_cast<unsigned long long>(spec.training.seed));
    std::printf("%5s  %10s  %9s  %9s  %8s  %8s\n", "epoch", "train_loss", "train_acc", "test_loss",
                "test_acc", "wall_s");
    std::fflush(stdout);
  }

  std::vector<EpochMetrics> epochs;
  for (int e = 0; e < spec.training.epochs; ++e) {
    ProgressBar bar("epoch " + std::to_string(e + 1) + "/" + std::to_string(spec.training.epochs));
    epochs.push_back(trainer.run_epoch([&](const BatchProgress& p) {
      char extra[64];
      std::snprintf(extra, sizeof extra, "loss %.4f acc %.2f%%", p.loss, 100 * p.accuracy);
      bar.update(p.batch, p.batches, extra);
    }));
    bar.clear();
    const EpochMetrics& m = epochs.back();
    if (!quiet) {
      std::printf("%5d  %10.4f  %8.2f%%  %9.4f  %7.2f%%  %8.3f\n", m.epoch, m.train.loss,
                  100 * m.train.accuracy, m.test.loss, 100 * m.test.accuracy,
                  m.train_seconds + m.test_seconds);
      std::fflush(stdout);
    }
  }

  write_text_file(out.file("epochs.csv"), epochs_csv(epochs));
  write_text_file(out.file("stats.json"), stats_json(spec, data, trainer.network(), epochs));
  write_text_file(out.file("timing.json"), timing_json(epochs, load_seconds));
  out.commit();
  const EpochMetrics& last = epochs.back();
  std::printf("final: test accuracy %.2f%% after %d epoch(s); results in %s/\n",
              100 * last.test.accuracy, last.epoch, out.final_dir().c_str());
  return 0;
}

}  // namespace trainsim
