#include "sim/run/experiment_runner.h"

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>

#include "sim/accel/energy.h"
#include "sim/core/error.h"
#include "sim/core/format.h"
#include "sim/core/interrupt.h"
#include "sim/core/terminal_lines.h"
#include "sim/data/dataset_registry.h"
#include "sim/io/staged_dir.h"
#include "sim/report/html/report.h"
#include "sim/report/run_report.h"
#include "sim/report/run_timeline.h"
#include "sim/report/train_report.h"
#include "sim/run/experiment_file.h"
#include "sim/run/hype_runner.h"
#include "sim/run/progress_bar.h"
#include "sim/run/run_kinds.h"
#include "sim/run/system_runner.h"
#include "sim/techniques/technique.h"
#include "sim/train/accel_session.h"
#include "sim/train/buffer_storage.h"
#include "sim/train/checkpoint.h"
#include "sim/train/trainer.h"

namespace trainsim {

namespace {

constexpr char kIncompleteFile[] = "INCOMPLETE";
constexpr char kCheckpointFile[] = "checkpoint.bin";

double since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

std::string command_name(bool simulate) {
  return simulate ? "run" : "train";
}

// What a run builds before its first batch; building it checks everything that can fail on
// bad input, so a run fails before it has written anything.
struct Prepared {
  std::shared_ptr<const Dataset> data;
  double load_seconds = 0;
  std::unique_ptr<Trainer> trainer;
  std::unique_ptr<AcceleratorSession> session;
};

Prepared prepare(const ExperimentSpec& spec, bool simulate) {
  Prepared p;
  const auto t_load = std::chrono::steady_clock::now();
  p.data = load_dataset(spec.dataset);
  p.load_seconds = since(t_load);
  p.trainer = std::make_unique<Trainer>(spec, *p.data);
  if (simulate) {
    check_buffer_storage(spec, *p.trainer);
    p.session = std::make_unique<AcceleratorSession>(spec, p.trainer->network());
  }
  return p;
}

void print_header(const ExperimentSpec& spec, const Prepared& p, bool simulate, int first_epoch) {
  const Dataset& data = *p.data;
  const auto& o = spec.training.optimizer;
  // Three lines (the run, the training, the accelerator), each wrapped to 80 columns.
  std::string header = wrap_parts(
      {"trainsim " + command_name(simulate) + ": " + spec.name,
       sformat("network %s (%lld params)", spec.network.name.c_str(),
               static_cast<long long>(p.trainer->network().param_count())),
       sformat("dataset %s (%lld train, %lld test)", data.name.c_str(),
               static_cast<long long>(data.train.count), static_cast<long long>(data.test.count))});
  std::string steps;  // the schedule: "lr 0.05, x0.1 after epochs 6, 8"
  for (std::size_t i = 0; i < o.lr_steps.size(); ++i)
    steps += (i == 0 ? sformat(", x%g after epochs ", o.lr_factor) : std::string(", ")) +
             std::to_string(o.lr_steps[i]);
  header += wrap_parts({sformat("optimizer %s lr %g%s (%s, clip %g)", o.kind.c_str(), o.lr,
                                steps.c_str(), o.reduction.c_str(), o.clip),
                        sformat("batch %d", spec.training.batch_size),
                        sformat("epochs %d", spec.training.epochs),
                        sformat("seed %llu", static_cast<unsigned long long>(spec.training.seed)),
                        sformat("threads %d", p.trainer->threads())});
  if (simulate) {
    const AcceleratorSpec& a = spec.sim.accelerator;
    header += wrap_parts({sformat("accelerator %s (%dx%d PEs, %s, %g GHz, %d-bit, %.0f KiB buffer)",
                                  a.name.c_str(), a.rows, a.cols, spec.sim.dataflow.c_str(),
                                  a.clock_ghz, a.word_bits, a.buffer_kib()),
                          "technique " + spec.sim.technique.label(),
                          spec.sim.fidelity + " fidelity", "energy in " + a.energy.unit});
  }
  std::fputs(header.c_str(), stdout);
  print_notes(spec);
  if (first_epoch > 0)
    std::printf("resuming after epoch %d of %d (from %s/%s)\n", first_epoch, spec.training.epochs,
                spec.output.dir.c_str(), kCheckpointFile);
  if (simulate) {
    // 80 columns with the hit rate: one space between columns, each as wide as its values.
    std::printf("%5s %10s %9s %8s %11s %9s %9s %6s%s\n", "epoch", "train_loss", "test_loss",
                "test_acc", "cycles", "sim_ms", "energy", "wall_s",
                technique_info(spec.sim.technique).speculates ? "   hit" : "");
  } else {
    std::printf("%5s  %10s  %9s  %9s  %8s  %8s\n", "epoch", "train_loss", "train_acc", "test_loss",
                "test_acc", "wall_s");
  }
  std::fflush(stdout);
}

void print_epoch_line(const RunEpoch& run, const AcceleratorSpec* acc) {
  const EpochMetrics& m = run.metrics;
  const double wall = m.train_seconds + m.test_seconds;
  if (acc) {
    const std::int64_t cycles = run.sim[0].elapsed_cycles;
    std::printf("%5d %10.4f %9.4f %7.2f%% %11lld %9.3f %9.4g %6.2f", m.epoch, m.train.loss,
                m.test.loss, 100 * m.test.accuracy, static_cast<long long>(cycles),
                static_cast<double>(cycles) / (acc->clock_ghz * 1e6), run.sim[0].energy.total(),
                wall);
    if (m.technique.hit_rate() >= 0) std::printf(" %5.3f", m.technique.hit_rate());
    std::printf("\n");
  } else {
    std::printf("%5d  %10.4f  %8.2f%%  %9.4f  %7.2f%%  %8.3f\n", m.epoch, m.train.loss,
                100 * m.train.accuracy, m.test.loss, 100 * m.test.accuracy, wall);
  }
  std::fflush(stdout);
}

std::vector<EpochMetrics> metrics_of(const std::vector<RunEpoch>& epochs) {
  std::vector<EpochMetrics> m;
  for (const RunEpoch& r : epochs) m.push_back(r.metrics);
  return m;
}

// Every output file for the epochs so far; `complete` on the last epoch.
void add_outputs(StagedDir::Update& u, const ExperimentSpec& spec, Prepared& p,
                 const RunProgress& progress, bool complete) {
  const std::vector<EpochMetrics> metrics = metrics_of(progress.epochs);
  const std::string status = complete ? "complete" : "incomplete";
  Trainer& trainer = *p.trainer;
  if (p.session) {
    const AcceleratorSpec& a = spec.sim.accelerator;
    u.write("epochs.csv", run_epochs_csv(progress.epochs, a));
    u.write("layers.csv", run_layers_csv(*p.session));
    u.write("timeline.json", run_timeline_json(*p.session));
    u.write("stats.json",
            run_stats_json(spec, *p.data, trainer.network(), progress.epochs, *p.session,
                           trainer.technique().storage_bytes(static_cast<int>(a.word_bytes())),
                           status));
  } else {
    u.write("epochs.csv", epochs_csv(metrics));
    u.write("stats.json", stats_json(spec, *p.data, trainer.network(), metrics, status));
  }
  std::string stats_name, stats_text;
  if (layer_stats_file(spec.sim.technique, metrics, trainer.network(), stats_name, stats_text))
    u.write(stats_name, stats_text);
  u.write("timing.json", timing_json(metrics, progress.load_seconds, trainer.threads()));
}

// Publishes an interrupted run's completed epochs; false if even that fails (a full disk).
bool publish_incomplete(StagedDir& out) {
  try {
    out.commit();
    return true;
  } catch (const std::exception&) {
    return false;
  }
}

std::string incomplete_note(const ExperimentSpec& spec, int done, bool simulate) {
  return "incomplete: " + std::to_string(done) + " of " + std::to_string(spec.training.epochs) +
         " epochs completed\ncontinue with: trainsim " + command_name(simulate) + " --resume " +
         spec.output.dir + "\n";
}

// Test hook: after this epoch completes, the run is stopped as Ctrl-C would stop it, so
// tests can interrupt a run at an exact point.
int stop_after_epoch() {
  const char* v = std::getenv("TRAINSIM_TEST_INTERRUPT_AFTER_EPOCH");
  return v ? std::atoi(v) : 0;
}

}  // namespace

RunResult run_experiment(const ExperimentSpec& spec, const RunOptions& options) {
  const RunKindInfo& kind = run_kind_of(spec, options.simulate);
  if (!options.chakra_dir.empty() && !kind.chakra)
    throw UserError(
        "--chakra writes the traces of a run on a system of devices: give the "
        "experiment a `system:` (one device: system: {devices: 1})");
  return kind.run(spec, options);
}

std::string check_experiment(const ExperimentSpec& spec, bool simulate) {
  return run_kind_of(spec, simulate).check(spec, simulate);
}

RunResult run_trained_experiment(const ExperimentSpec& spec, const RunOptions& options) {
  const std::string command = command_name(options.simulate);
  Prepared p = prepare(spec, options.simulate);
  Trainer& trainer = *p.trainer;
  AcceleratorSession* session = p.session.get();
  const StagedDir::Mode mode = options.resume  ? StagedDir::Mode::kResume
                               : options.force ? StagedDir::Mode::kReplace
                                               : StagedDir::Mode::kNew;
  StagedDir out(spec.output.dir, mode, command);
  RunProgress progress;
  progress.load_seconds = p.load_seconds;
  std::string config;
  if (options.resume) {
    config = read_text_file(out.final_dir() + "/config.resolved.yaml");
    load_checkpoint(out.final_dir() + "/" + kCheckpointFile, config, progress, trainer, session);
  } else {
    config = resolved_yaml(spec);
    write_text_file(out.file("config.resolved.yaml"), config);
  }
  const int first = static_cast<int>(progress.epochs.size());
  // Epochs whose files (outputs, checkpoint, marker) are all on disk, as one set: only those
  // can be published incomplete and resumed.
  int published = first;
  if (!options.quiet) print_header(spec, p, options.simulate, first);

  const int epochs = spec.training.epochs;
  const EtaClock clock(first, epochs);
  try {
    for (int e = first; e < epochs; ++e) {
      const std::string epoch_label =
          "epoch " + std::to_string(e + 1) + "/" + std::to_string(epochs);
      ProgressBar bar(options.label.empty() ? epoch_label : options.label + " " + epoch_label);
      RunEpoch run;
      run.metrics = trainer.run_epoch([&](const BatchProgress& b) {
        if (!bar.enabled()) return;
        char extra[96];
        if (session) {
          std::snprintf(extra, sizeof extra, "loss %.4f acc %.2f%% | %lld cycles", b.loss,
                        100 * b.accuracy, static_cast<long long>(session->simulated_cycles()));
        } else {
          std::snprintf(extra, sizeof extra, "loss %.4f acc %.2f%%", b.loss, 100 * b.accuracy);
        }
        const double fraction = static_cast<double>(b.batch) / static_cast<double>(b.batches);
        bar.update(b.batch, b.batches, clock.elapsed(), clock.eta(e, fraction), extra);
      });
      bar.clear();
      if (session) run.sim = session->record().take_epoch();
      progress.epochs.push_back(run);
      const bool last = e + 1 == epochs;
      StagedDir::Update files;
      add_outputs(files, spec, p, progress, last);
      if (last) {
        files.remove(kCheckpointFile);
        files.remove(kIncompleteFile);
      } else {
        files.write(kCheckpointFile, checkpoint_bytes(config, progress, trainer, session));
        files.write(kIncompleteFile, incomplete_note(spec, e + 1, options.simulate));
      }
      out.apply(files);
      // The page reads the files just written: the last epoch's, complete.
      if (last && options.report) add_report(out);
      published = e + 1;
      if (!options.quiet) print_epoch_line(run, session ? &spec.sim.accelerator : nullptr);
      if (options.epoch_lines && !stderr_is_terminal()) {
        std::fprintf(stderr, "%s: %s done, elapsed %s, ETA %s\n",
                     options.label.empty() ? spec.name.c_str() : options.label.c_str(),
                     epoch_label.c_str(), format_duration(clock.elapsed()).c_str(),
                     format_duration(clock.eta(e, 1.0)).c_str());
        std::fflush(stderr);
      }
      if (e + 1 == stop_after_epoch()) std::raise(SIGINT);
    }
  } catch (...) {
    const int done = published;
    // The files of the last published epoch are all there: publish them, marked.
    if (options.keep_incomplete && done > 0 && publish_incomplete(out)) {
      std::fprintf(stderr,
                   "\ntrainsim: %s stopped during epoch %d of %d; the %d completed epoch(s) are "
                   "in %s/, marked incomplete (continue: trainsim %s --resume %s)\n",
                   command.c_str(), done + 1, epochs, done, out.final_dir().c_str(),
                   command.c_str(), out.final_dir().c_str());
    }
    throw;
  }
  out.commit();

  const std::vector<RunEpoch>& done = progress.epochs;
  RunResult result;
  result.test_accuracy = done.back().metrics.test.accuracy;
  if (session) {
    const AcceleratorSpec& a = spec.sim.accelerator;
    const OpStats& tr = session->record().totals()[0].stats;
    result.cycles = session->record().totals()[0].elapsed_cycles;
    result.seconds = static_cast<double>(*result.cycles) / (a.clock_ghz * 1e9);
    result.clock_ghz = a.clock_ghz;
    for (const RunEpoch& e : done)
      result.epochs.push_back({e.metrics.test.accuracy,
                               static_cast<double>(e.sim[0].elapsed_cycles) / (a.clock_ghz * 1e9),
                               e.step_cycles() / (a.clock_ghz * 1e9),
                               e.metrics.technique.hit_rate()});
    const EnergyBreakdown& energy = session->record().totals()[0].energy;
    result.energy = energy.total();
    result.memory_energy = energy.memory();
    result.energy_unit = a.energy.unit;
    result.dram_bytes = tr.dram_bytes();
    result.utilization = session->record().totals()[0].utilization();
    result.compute_utilization = tr.compute_utilization();
    if (!options.quiet) std::fputs(run_summary(done, *session).c_str(), stdout);
  }
  if (options.final_line)
    std::printf("final: test accuracy %.2f%% after %d epoch(s); results in %s/\n",
                100 * result.test_accuracy, done.back().metrics.epoch, out.final_dir().c_str());
  return result;
}

void check_numerics(const ExperimentSpec& spec) {
  if (spec.numerics != "none") prepare(spec, false);
}

std::string check_trained_experiment(const ExperimentSpec& spec, bool simulate) {
  Prepared p = prepare(spec, simulate);
  char line[512];
  std::snprintf(line, sizeof line,
                "%s: ok: network %s (%lld params) on %s (%lld train, %lld test), %d epoch(s) of "
                "batch %d",
                spec.name.c_str(), spec.network.name.c_str(),
                static_cast<long long>(p.trainer->network().param_count()), p.data->name.c_str(),
                static_cast<long long>(p.data->train.count),
                static_cast<long long>(p.data->test.count), spec.training.epochs,
                spec.training.batch_size);
  std::string out = line;
  if (simulate) {
    const AcceleratorSpec& a = spec.sim.accelerator;
    std::snprintf(line, sizeof line, ", accelerator %s (%dx%d, %s), technique %s", a.name.c_str(),
                  a.rows, a.cols, spec.sim.dataflow.c_str(), spec.sim.technique.label().c_str());
    out += line;
  }
  return out + "; results would go to " + spec.output.dir + "/";
}

ExperimentSpec load_resumable_experiment(const std::string& dir, const std::string& command) {
  std::string d = dir;
  while (d.size() > 1 && d.back() == '/') d.pop_back();
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(d, ec)) throw UserError(command + " --resume: no directory '" + d + "'");
  if (!fs::exists(d + "/" + kIncompleteFile, ec))
    throw UserError(command + " --resume: '" + d + "' holds no incomplete run (no " +
                    kIncompleteFile + " file)");
  if (!fs::exists(d + "/" + kCheckpointFile, ec))
    throw UserError(command + " --resume: '" + d + "' has no " + kCheckpointFile);
  ExperimentSpec spec = load_experiment(d + "/config.resolved.yaml");
  spec.output.dir = d;  // wherever the directory is now
  return spec;
}

void print_notes(const ExperimentSpec& spec) {
  for (const std::string& n : spec.notes) std::printf("note: %s\n", n.c_str());
}

}  // namespace trainsim
