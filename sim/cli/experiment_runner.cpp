#include "sim/cli/experiment_runner.h"

#include <chrono>
#include <cstdio>
#include <memory>

#include "sim/accel/energy.h"
#include "sim/cli/arg_parse.h"
#include "sim/cli/progress_bar.h"
#include "sim/config/experiment_config.h"
#include "sim/core/error.h"
#include "sim/data/dataset_registry.h"
#include "sim/report/staged_dir.h"
#include "sim/report/train_report.h"
#include "sim/train/accel_session.h"
#include "sim/train/trainer.h"

namespace trainsim {

namespace {

double since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

void print_header(const ExperimentSpec& spec, const Dataset& data, Trainer& trainer,
                  bool simulate) {
  const char* cmd = simulate ? "run" : "train";
  std::printf("trainsim %s: %s | network %s (%lld params) | dataset %s (%lld train, %lld test)\n",
              cmd, spec.name.c_str(), spec.network.name.c_str(),
              static_cast<long long>(trainer.network().param_count()), data.name.c_str(),
              static_cast<long long>(data.train.count), static_cast<long long>(data.test.count));
  std::printf(
      "optimizer %s lr %g (%s, clip %g) | batch %d | %d epoch(s) | seed %llu | %d thread(s)\n",
      spec.training.optimizer.kind.c_str(), spec.training.optimizer.lr,
      spec.training.optimizer.reduction.c_str(), spec.training.optimizer.clip,
      spec.training.batch_size, spec.training.epochs,
      static_cast<unsigned long long>(spec.training.seed), trainer.threads());
  if (simulate) {
    const AcceleratorSpec& a = spec.sim.accelerator;
    std::printf(
        "accelerator %s (%dx%d PEs, %s, %g GHz, %d-bit, %.0f KiB buffer) | technique %s | "
        "%s fidelity\n",
        a.name.c_str(), a.rows, a.cols, spec.sim.dataflow.c_str(), a.clock_ghz, a.word_bits,
        a.buffer_kib(), spec.sim.technique.label().c_str(), spec.sim.fidelity.c_str());
    std::printf("%5s  %10s  %9s  %8s  %14s  %10s  %10s  %8s\n", "epoch", "train_loss", "test_loss",
                "test_acc", "train_cycles", "sim_ms", "energy", "wall_s");
  } else {
    std::printf("%5s  %10s  %9s  %9s  %8s  %8s\n", "epoch", "train_loss", "train_acc", "test_loss",
                "test_acc", "wall_s");
  }
  std::fflush(stdout);
}

}  // namespace

RunResult run_experiment(const ExperimentSpec& spec, const RunOptions& options) {
  if (spec.numerics == "none") {
    if (!options.simulate)
      throw UserError("experiment '" + spec.name +
                      "' has numerics: none, so there is nothing to train: use trainsim run");
    return run_shape_only_experiment(spec, options);
  }
  // Everything that can fail on bad input happens before the output directory exists.
  const auto t_load = std::chrono::steady_clock::now();
  const Dataset data = load_dataset(spec.dataset);
  const double load_seconds = since(t_load);
  Trainer trainer(spec, data);
  std::unique_ptr<AcceleratorSession> session;
  if (options.simulate) session = std::make_unique<AcceleratorSession>(spec, trainer.network());

  StagedDir out(spec.output.dir);
  write_text_file(out.file("config.resolved.yaml"), resolved_yaml(spec));
  if (!options.quiet) print_header(spec, data, trainer, options.simulate);

  std::vector<RunEpoch> epochs;
  for (int e = 0; e < spec.training.epochs; ++e) {
    ProgressBar bar("epoch " + std::to_string(e + 1) + "/" + std::to_string(spec.training.epochs));
    RunEpoch run;
    run.metrics = trainer.run_epoch([&](const BatchProgress& p) {
      char extra[96];
      if (session) {
        std::snprintf(extra, sizeof extra, "loss %.4f acc %.2f%% | %lld cycles", p.loss,
                      100 * p.accuracy, static_cast<long long>(session->simulated_cycles()));
      } else {
        std::snprintf(extra, sizeof extra, "loss %.4f acc %.2f%%", p.loss, 100 * p.accuracy);
      }
      bar.update(p.batch, p.batches, extra);
    });
    bar.clear();
    if (session) run.sim = session->take_epoch();
    epochs.push_back(run);
    if (options.quiet) continue;
    const EpochMetrics& m = run.metrics;
    const double wall = m.train_seconds + m.test_seconds;
    if (session) {
      const AcceleratorSpec& a = spec.sim.accelerator;
      const OpStats& tr = run.sim[0].stats;
      const std::int64_t cycles = run.sim[0].elapsed_cycles;
      std::printf("%5d  %10.4f  %9.4f  %7.2f%%  %14lld  %10.3f  %10.4g  %8.3f", m.epoch,
                  m.train.loss, m.test.loss, 100 * m.test.accuracy, static_cast<long long>(cycles),
                  static_cast<double>(cycles) / (a.clock_ghz * 1e6), price(tr, a).total(), wall);
      if (m.technique.hit_rate() >= 0) std::printf("  hit rate %.4f", m.technique.hit_rate());
      std::printf("\n");
    } else {
      std::printf("%5d  %10.4f  %8.2f%%  %9.4f  %7.2f%%  %8.3f\n", m.epoch, m.train.loss,
                  100 * m.train.accuracy, m.test.loss, 100 * m.test.accuracy, wall);
    }
    std::fflush(stdout);
  }

  std::vector<EpochMetrics> metrics;
  for (const RunEpoch& r : epochs) metrics.push_back(r.metrics);
  RunResult result;
  result.test_accuracy = epochs.back().metrics.test.accuracy;
  if (session) {
    const AcceleratorSpec& a = spec.sim.accelerator;
    const OpStats& tr = session->totals()[0].stats;
    result.cycles = session->totals()[0].elapsed_cycles;
    result.seconds = static_cast<double>(result.cycles) / (a.clock_ghz * 1e9);
    result.clock_ghz = a.clock_ghz;
    for (const RunEpoch& e : epochs)
      result.epochs.push_back({e.metrics.test.accuracy,
                               static_cast<double>(e.sim[0].elapsed_cycles) / (a.clock_ghz * 1e9),
                               e.step_cycles(), e.metrics.technique.hit_rate()});
    const EnergyBreakdown energy = price(tr, a);
    result.energy = energy.total();
    result.memory_energy = energy.memory();
    result.energy_unit = a.energy.unit;
    result.dram_bytes = tr.dram_bytes();
    result.utilization = tr.utilization();
    write_text_file(out.file("epochs.csv"), run_epochs_csv(epochs, a));
    write_text_file(out.file("layers.csv"), run_layers_csv(*session));
    write_text_file(
        out.file("stats.json"),
        run_stats_json(spec, data, trainer.network(), epochs, *session,
                       trainer.technique().storage_bytes(static_cast<int>(a.word_bytes()))));
  } else {
    write_text_file(out.file("epochs.csv"), epochs_csv(metrics));
    write_text_file(out.file("stats.json"), stats_json(spec, data, trainer.network(), metrics));
  }
  if (has_predictor_stats(metrics))
    write_text_file(out.file("predictor.csv"), predictor_csv(metrics, trainer.network()));
  write_text_file(out.file("timing.json"), timing_json(metrics, load_seconds, trainer.threads()));
  out.commit();
  if (session && !options.quiet) std::fputs(run_summary(epochs, *session).c_str(), stdout);
  std::printf("final: test accuracy %.2f%% after %d epoch(s); results in %s/\n",
              100 * result.test_accuracy, epochs.back().metrics.epoch, out.final_dir().c_str());
  return result;
}

}  // namespace trainsim

namespace trainsim {

namespace po = boost::program_options;

po::options_description experiment_options(const std::string& command) {
  po::options_description opts(command);
  opts.add_options()("experiment", po::value<std::string>()->required(), "experiment YAML")(
      "out", po::value<std::string>(), "output directory")(
      "set", po::value<std::vector<std::string>>()->composing(), "override KEY=VALUE")(
      "quiet", po::bool_switch(), "only the summary");
  return opts;
}

ExperimentArgs parse_experiment_args(const std::string& command,
                                     const std::vector<std::string>& args,
                                     const po::options_description& opts,
                                     po::variables_map* vm_out) {
  po::positional_options_description pos;
  pos.add("experiment", 1);
  const po::variables_map vm = parse_args(command, args, opts, pos);
  ExperimentArgs a;
  a.path = vm["experiment"].as<std::string>();
  if (vm.count("set")) a.overrides = vm["set"].as<std::vector<std::string>>();
  // --out is an override like any other, so config.resolved.yaml records where results went.
  if (vm.count("out")) a.overrides.push_back("output.dir=" + vm["out"].as<std::string>());
  a.quiet = vm["quiet"].as<bool>();
  if (vm_out) *vm_out = vm;
  return a;
}

}  // namespace trainsim
