// `trainsim run` (and validate) for an experiment with `hype:`: every iteration is timed on the
// hybrid system by the Hype-training runtime (sim/hype/hype_model.h) under the experiment's
// policy and under gpu-only, and, with numerics: float, the network trains for real exactly as
// on one device: placing an op on another device changes when and where it runs, never what
// it computes. Output files: sim/report/hype_report.h.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <optional>

#include "sim/core/checked_span.h"
#include "sim/core/error.h"
#include "sim/core/format.h"
#include "sim/core/interrupt.h"
#include "sim/core/terminal_lines.h"
#include "sim/io/staged_dir.h"
#include "sim/report/html/readable.h"
#include "sim/report/html/report.h"
#include "sim/report/hype_report.h"
#include "sim/run/experiment_file.h"
#include "sim/run/experiment_runner.h"
#include "sim/run/hype_runner.h"
#include "sim/run/progress_bar.h"
#include "sim/run/system_runner.h"
#include "sim/run/timed_training.h"
#include "sim/techniques/technique.h"
#include "sim/train/trainer.h"

namespace trainsim {

namespace {

void check_hype_spec(const ExperimentSpec& spec) {
  // The op DAG is backprop's: a technique whose batches are anything else (predictions,
  // speculation, hardware of its own) has no DAG here yet.
  const TechniqueInfo& t = technique_info(spec.sim.technique);
  bool plain = !t.speculates && !t.phased() && !t.hardware && t.shape_only;
  if (plain)
    for (const BatchRecipe& r : t.shape_only(spec.sim.technique).recipes)
      plain = plain && r.backprop && !r.emit;
  if (!plain)
    throw UserError("a hype: system runs plain backprop (technique: " + spec.sim.technique.label() +
                    " is for one accelerator or a pipeline)");
  // Its runtime prices every op with its device's model, an accelerator's included (its fast
  // cost model): nothing there is clocked, so a cycle fidelity would be ignored.
  if (spec.sim.fidelity != "fast")
    throw UserError(
        "a hype: system prices each op with its devices' models and has no cycle "
        "fidelity (fidelity: " +
        spec.sim.fidelity + "; an accelerator run or a pipeline system clocks its arrays)");
}

// The iterations an epoch has: the training batches, the last smaller one rounded up to a
// multiple of the GPUs, which share it.
EpochBatches epoch_shape(const ExperimentSpec& spec, std::int64_t train) {
  const int g = spec.hype->gpus;
  EpochBatches e = spec.training.epoch_batches(train);
  if (e.rest % g != 0) e.rest += g - e.rest % g;
  return e;
}

std::string system_line(const HypeSpec& h, const HypeIteration& it) {
  std::string s = std::to_string(h.gpus) + "x " + h.gpu->name;
  if (h.offloads > 0 && it.policy_offloads)
    s += " + " + std::to_string(h.offloads) + "x " + h.offload->name;
  if (h.offloads > 0 && !it.policy_offloads) s += " alone (the policy uses no offload device)";
  return s;
}

}  // namespace

std::string check_hype_experiment(const ExperimentSpec& spec) {
  check_hype_spec(spec);
  const DatasetShape data = checked_data_shape(spec);
  const NetShape net(spec.network);
  const HypeIteration it =
      simulate_hype(*spec.hype, net, spec.training.batch_size, spec.training.optimizer);
  return sformat(
      "%s: ok: network %s on %s (%lld train), hype system %s, policy %s, %d ops per "
      "iteration; results would go to %s/",
      spec.name.c_str(), spec.network.name.c_str(), spec.dataset.name.c_str(),
      static_cast<long long>(data.train), system_line(*spec.hype, it).c_str(),
      spec.hype->policy.c_str(), it.dag.size(), spec.output.dir.c_str());
}

RunResult run_hype_experiment(const ExperimentSpec& spec, const RunOptions& options) {
  if (options.resume)
    throw UserError(
        "a run on a hype: system has no checkpoint to resume: run it again with --force");
  if (!options.chakra_dir.empty())
    throw UserError("--chakra writes pipeline systems' traces; a hype: run writes timeline.json");
  check_hype_spec(spec);
  // Everything that can fail on bad input happens before the output directory exists.
  const DatasetShape data = checked_data_shape(spec);
  const NetShape net(spec.network);
  const HypeSpec& h = *spec.hype;
  const HypeIteration it = simulate_hype(h, net, spec.training.batch_size, spec.training.optimizer);
  const EpochBatches shape = epoch_shape(spec, data.train);
  const std::int64_t trained = spec.training.trained_samples(data.train);
  std::optional<HypeIteration> rest;
  if (shape.rest > 0)
    rest = simulate_hype(h, net, static_cast<int>(shape.rest), spec.training.optimizer);
  const bool real = spec.numerics != "none";
  std::shared_ptr<const Dataset> dataset;
  const std::unique_ptr<Trainer> trainer = real_trainer(spec, dataset);
  if (!options.quiet) {
    print_run_line(spec, data, real);
    // What was planned off the GPU and what ran there; each op planned off that ran on the
    // GPU has one of three reasons (ops.csv says which, per op).
    const int planned =
        static_cast<int>(std::count(it.plan.begin(), it.plan.end(), OpSite::kOffload));
    const RuntimeResult& run = it.policy.run;
    std::string ran = sformat(", %d ran there", run.offloaded);
    if (planned > run.offloaded)
      ran += sformat(
          " (back on the GPU: %d by the overlap rule, %d by the never-slower guard, "
          "%d taken by an idle GPU)",
          run.overlap_blocked, it.guard_demotions, run.demoted);
    std::fputs(wrap_parts({"hype system: " + system_line(h, it), "policy " + h.policy,
                           sformat("%d ops per iteration, %d planned off the GPU%s", it.dag.size(),
                                   planned, ran.c_str()),
                           std::isfinite(h.power_cap_w) ? sformat("cap %g W", h.power_cap_w)
                                                        : std::string()})
                   .c_str(),
               stdout);
    print_notes(spec);
    // 80 columns: one space between columns, each as wide as its values.
    std::printf("%5s %8s %13s %10s %11s %6s %13s %6s\n", "epoch", "test_acc", "train_seconds",
                "samples/s", "energy_J", "avg_W", "gpu_only_s", "wall_s");
    std::fflush(stdout);
  }
  StagedDir out(spec.output.dir, options.force ? StagedDir::Mode::kReplace : StagedDir::Mode::kNew,
                "run");
  HypeRunData r;
  r.spec = &spec;
  r.net = &net;
  r.it = &it;
  r.train_samples = trained;
  const EtaClock clock(0, spec.training.epochs);
  for (int e = 0; e < spec.training.epochs; ++e) {
    check_interrupt();
    const auto t0 = std::chrono::steady_clock::now();
    HypeEpoch ep = hype_epoch(it, shape.full, rest ? &*rest : nullptr);
    if (real) {
      const EpochMetrics m = train_epoch(*trainer, spec, options, e, clock);
      ep.has_accuracy = true;
      ep.test_accuracy = m.test.accuracy;
      ep.test_loss = m.test.loss;
    }
    r.epochs.push_back(ep);
    if (!options.quiet) {
      std::printf("%5d %8s %13.6g %10.6g %11.6g %6.4g %13.6g %6.2f\n", e + 1,
                  real ? fmt("%.2f%%", 100 * ep.test_accuracy).c_str() : "-", ep.seconds,
                  static_cast<double>(trained) / ep.seconds, ep.energy_j, ep.energy_j / ep.seconds,
                  ep.gpu_only_seconds,
                  std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
      std::fflush(stdout);
    }
  }
  write_text_file(out.file("config.resolved.yaml"), resolved_yaml(spec));
  write_text_file(out.file("stats.json"), hype_stats_json(r));
  write_text_file(out.file("epochs.csv"), hype_epochs_csv(r));
  write_text_file(out.file("ops.csv"), hype_ops_csv(r));
  write_text_file(out.file("placement.csv"), hype_placement_csv(r));
  write_text_file(out.file("devices.csv"), hype_devices_csv(r));
  write_text_file(out.file("links.csv"), hype_links_csv(r));
  write_text_file(out.file("power.csv"), hype_power_csv(r));
  write_text_file(out.file("timeline.json"), hype_timeline_json(r));
  if (options.report) add_report(out);
  out.commit();

  RunResult result;
  result.has_accuracy = real;
  result.test_accuracy = real ? r.epochs.back().test_accuracy : 0;
  // Seconds are the system's; its devices have clocks of their own (and DVFS changes the
  // GPU's), so there are no run-wide cycles.
  result.clock_ghz = 0;
  result.energy_unit = "J";
  for (const HypeEpoch& ep : r.epochs) {
    result.seconds += ep.seconds;
    result.energy += ep.energy_j;
    RunResult::Epoch re;
    re.test_accuracy = ep.has_accuracy ? ep.test_accuracy : -1;
    re.seconds = ep.seconds;
    re.step_seconds = ep.seconds / static_cast<double>(trained);
    result.epochs.push_back(re);
  }
  result.avg_w = result.energy / result.seconds;
  result.peak_w = it.policy.peak_w;
  result.violations = 0;
  for (const HypeEpoch& ep : r.epochs) result.violations += ep.violations;
  double gpu_only_s = 0, gpu_only_j = 0;
  for (const HypeEpoch& ep : r.epochs)
    gpu_only_s += ep.gpu_only_seconds, gpu_only_j += ep.gpu_only_energy_j;
  // The figures in full, then the final line short enough for 80 columns with its path.
  if (!options.quiet)
    std::fputs(
        wrap_parts({sformat("totals: %.6g s of training on %s (policy %s)", result.seconds,
                            system_line(h, it).c_str(), h.policy.c_str()),
                    sformat("%.6g samples/s, %.6g J, %.4g W average",
                            static_cast<double>(trained) * spec.training.epochs / result.seconds,
                            result.energy, result.energy / result.seconds),
                    sformat("gpu-only: %.6g s, %.6g J", gpu_only_s, gpu_only_j)})
            .c_str(),
        stdout);
  if (options.final_line)
    std::printf(
        "final: %s%s of training, %s (gpu-only: %s, %s); results in %s/\n",
        real ? ("test accuracy " + fmt("%.2f%%", 100 * result.test_accuracy) + ", ").c_str() : "",
        readable_seconds(result.seconds).c_str(), readable_energy(result.energy, "J").c_str(),
        readable_seconds(gpu_only_s).c_str(), readable_energy(gpu_only_j, "J").c_str(),
        out.final_dir().c_str());
  return result;
}

}  // namespace trainsim
