// `trainsim run` for an experiment with a `system:` of several devices: the network is cut
// into pipeline stages over the devices, the schedule's orders are executed on the
// multi-device SystemC platform (sim/pipeline/pipeline_model.h), and, with numerics: float,
// the network trains for real exactly as on one device with the same global batch (a
// synchronous pipeline only changes when each op runs). Output files:
// sim/report/pipeline_report.h.
#include <chrono>
#include <cstdio>
#include <memory>
#include <optional>

#include "sim/accel/energy.h"
#include "sim/core/checked_span.h"
#include "sim/core/error.h"
#include "sim/core/format.h"
#include "sim/core/interrupt.h"
#include "sim/core/terminal_lines.h"
#include "sim/data/dataset_registry.h"
#include "sim/io/output_target.h"
#include "sim/io/staged_dir.h"
#include "sim/report/chakra_writer.h"
#include "sim/report/html/readable.h"
#include "sim/report/html/report.h"
#include "sim/report/pipeline_report.h"
#include "sim/run/experiment_file.h"
#include "sim/run/experiment_runner.h"
#include "sim/run/progress_bar.h"
#include "sim/run/streamed_device.h"
#include "sim/run/system_runner.h"
#include "sim/run/timed_training.h"
#include "sim/techniques/technique.h"
#include "sim/train/run_limits.h"
#include "sim/train/shape_only_run.h"

namespace trainsim {

namespace {

std::string stage_summary(PipelineModel& m) {
  std::string out;
  for (int s = 0; s < m.layout().stages; ++s)
    out += (s ? " | " : "") + std::to_string(m.stage_first()[static_cast<std::size_t>(s)]) + "-" +
           std::to_string(m.stage_first()[static_cast<std::size_t>(s) + 1] - 1);
  return out;
}

}  // namespace

DatasetShape checked_data_shape(const ExperimentSpec& spec) {
  const DatasetShape data = dataset_shape(spec.dataset);
  const auto& in = spec.network.input;
  if (in[0] != data.channels || in[1] != data.height || in[2] != data.width ||
      spec.network.classes != data.classes)
    throw UserError("network '" + spec.network.name + "' does not fit dataset '" +
                    spec.dataset.name + "' (input " + std::to_string(in[0]) + "x" +
                    std::to_string(in[1]) + "x" + std::to_string(in[2]) + ", " +
                    std::to_string(spec.network.classes) + " classes; the dataset has " +
                    std::to_string(data.channels) + "x" + std::to_string(data.height) + "x" +
                    std::to_string(data.width) + ", " + std::to_string(data.classes) + ")");
  if (data.train <= 0)
    throw UserError("dataset '" + spec.dataset.name + "' has no training samples");
  spec.training.epoch_batches(data.train);  // training.drop_last must leave a batch
  return data;
}

std::string check_system_experiment(const ExperimentSpec& spec) {
  const DatasetShape data = checked_data_shape(spec);
  const NetShape shape(spec.network);
  const bool streamed = streamed_technique(spec);
  if (streamed) check_streamed_system(spec);
  const ExperimentSpec laid = streamed ? layout_spec(spec) : spec;
  PipelineModel model(laid, shape);
  char line[512];
  if (streamed) {
    std::snprintf(line, sizeof line,
                  "%s: ok: network %s on %s (%lld train), technique %s on %s (%s), timed from "
                  "the ops its numerics issue; results would go to %s/",
                  spec.name.c_str(), spec.network.name.c_str(), spec.dataset.name.c_str(),
                  static_cast<long long>(data.train), spec.sim.technique.label().c_str(),
                  spec.system.devices[0].name().c_str(), spec.system.name.c_str(),
                  spec.output.dir.c_str());
    return line;
  }
  std::snprintf(
      line, sizeof line,
      "%s: ok: network %s on %s (%lld train), %d device(s) (%s, %s), schedule %s, %d "
      "micro-batches%s, stages %s; results would go to %s/",
      spec.name.c_str(), spec.network.name.c_str(), spec.dataset.name.c_str(),
      static_cast<long long>(data.train), model.layout().devices, spec.system.name.c_str(),
      spec.system.topology.c_str(), spec.pipeline.schedule.c_str(), spec.pipeline.micro_batches,
      spec.pipeline.replicas > 1
          ? (" per replica x " + std::to_string(spec.pipeline.replicas) + " replicas").c_str()
          : "",
      stage_summary(model).c_str(), spec.output.dir.c_str());
  return line;
}

RunResult run_system_experiment(const ExperimentSpec& spec, const RunOptions& options) {
  if (options.resume)
    throw UserError(
        "a run on a system of devices has no checkpoint to resume: run it again "
        "with --force");
  // Everything that can fail on bad input happens before the output directory exists.
  const DatasetShape data = checked_data_shape(spec);
  const NetShape shape(spec.network);
  // A technique whose work depends on the data is timed from the ops its numerics issue on
  // the system's one device (sim/run/streamed_device.h); the system's model then lays out
  // the device and its links as for backprop.
  const bool streamed = streamed_technique(spec);
  if (streamed) check_streamed_system(spec);
  if (streamed && !options.chakra_dir.empty())
    throw UserError("--chakra: a run timed from its numerics' ops (technique '" +
                    spec.sim.technique.label() + "') has no task graph to write");
  const ExperimentSpec laid = streamed ? layout_spec(spec) : spec;
  PipelineModel model(laid, shape);
  const bool real = spec.numerics != "none";
  std::shared_ptr<const Dataset> dataset;
  const std::unique_ptr<Trainer> trainer = real_trainer(spec, dataset);
  std::unique_ptr<StreamedDevice> stream;
  if (streamed) stream = std::make_unique<StreamedDevice>(spec, *trainer);
  if (!options.quiet) {
    const DeviceSpec& d0 = spec.system.devices[0];
    const AcceleratorSpec& a = d0.accelerator;
    print_run_line(spec, data, real);
    std::string device0 = d0.name() + " (" + d0.model_kind + ")";
    if (!d0.model) {
      char text[256];
      std::snprintf(text, sizeof text, "%s (%dx%d, %s, %g GHz)", a.name.c_str(), a.rows, a.cols,
                    d0.dataflow.c_str(), a.clock_ghz);
      device0 = text;
    }
    std::fputs(wrap_parts({sformat("system %s: %d device(s), %s", spec.system.name.c_str(),
                                   model.layout().devices, spec.system.topology.c_str()),
                           sformat("links %g GB/s %g ns %g pJ/bit", spec.system.link.bandwidth_gbps,
                                   spec.system.link.latency_ns, spec.system.link.pj_per_bit),
                           "device 0: " + device0, "technique " + spec.sim.technique.label()})
                   .c_str(),
               stdout);
    const std::string replicas =
        spec.pipeline.replicas > 1
            ? " per replica x " + std::to_string(spec.pipeline.replicas) + " replicas"
            : "";
    if (streamed)
      std::fputs(
          wrap_parts({"timed from the ops its numerics issue", "the technique depends on the data"})
              .c_str(),
          stdout);
    else
      std::fputs(wrap_parts({"pipeline " + spec.pipeline.schedule,
                             sformat("%d micro-batches of %d%s", spec.pipeline.micro_batches,
                                     model.micro_size(), replicas.c_str()),
                             sformat("%d stage(s), layers %s", model.layout().stages,
                                     stage_summary(model).c_str())})
                     .c_str(),
                 stdout);
    print_notes(spec);
    std::printf("%5s  %9s  %14s  %10s  %12s  %8s\n", "epoch", "test_acc", "train_seconds", "idle",
                "samples/s", "wall_s");
    std::fflush(stdout);
  }
  const StagedDir::Mode mode = options.force ? StagedDir::Mode::kReplace : StagedDir::Mode::kNew;
  if (!options.chakra_dir.empty())
    check_apart(spec.output.dir, "--out", options.chakra_dir, "--chakra", "run");
  StagedDir out(spec.output.dir, mode, "run");
  // The traces are a results directory of their own, published with the run's.
  std::optional<StagedDir> chakra;
  if (!options.chakra_dir.empty()) chakra.emplace(options.chakra_dir, mode, "run", "--chakra");
  SystemRunData r;
  r.spec = &spec;
  r.model = &model;
  r.data = data;
  const EpochBatches split = spec.training.epoch_batches(data.train);
  const std::int64_t batches = split.count(), rest = split.rest;
  const std::int64_t trained = spec.training.trained_samples(data.train);
  r.trained_samples = trained;
  const EtaClock clock(0, spec.training.epochs);
  // The kind of every batch (backprop, ADA-GP Phase BP, Phase GP), as the technique says.
  const ShapeOnlyPlan plan = technique_info(laid.sim.technique).shape_only(laid.sim.technique);
  auto epoch_kinds = [&](int e) {
    std::vector<int> kinds(static_cast<std::size_t>(batches));
    for (std::int64_t i = 0; i < batches; ++i) kinds[static_cast<std::size_t>(i)] = plan.kind(e, i);
    return kinds;
  };
  std::vector<double> step_s;  // per epoch, of a run timed from its ops
  for (int e = 0; e < spec.training.epochs; ++e) {
    const auto t0 = std::chrono::steady_clock::now();
    check_interrupt();
    try {
      if (stream) {
        // The epoch's time is what its ops took: trained first, then taken.
        r.metrics.push_back(train_epoch(*trainer, spec, options, e, clock));
        r.epochs.push_back(stream->take_epoch(batches, model.net().channels().size()));
        model.price_work(r.epochs.back());
        step_s.push_back(stream->step_seconds());
      } else {
        r.epochs.push_back(model.epoch(epoch_kinds(e), rest));
      }
      // The whole run's sums, so that an overflow names the epoch it is in.
      accumulate(r.totals, r.epochs.back());
    } catch (const CounterOverflow& o) {
      const int word_bytes = spec.system.devices[0].accelerator.word_bytes();
      run_exceeds_counters(
          o, spec,
          {e + 1, data.train,
           !technique_hardware(spec.sim.technique, shape, word_bytes).own_model.outputs.empty()});
    }
    if (real && !stream) r.metrics.push_back(train_epoch(*trainer, spec, options, e, clock));
    const PipelineEpoch& ep = r.epochs.back();
    if (!options.quiet) {
      const double secs = ep.time_s;
      std::printf("%5d  %8s%%  %14.6g  %9.2f%%  %12.6g  %8.3f\n", e + 1,
                  real ? fmt("%.2f", 100 * r.metrics.back().test.accuracy).c_str() : "-", secs,
                  100 * idle_fraction(ep), secs > 0 ? static_cast<double>(trained) / secs : 0,
                  std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
      std::fflush(stdout);
    }
  }
  // The timeline: epoch 1 from an idle system up to and including its first backprop batch;
  // of a run timed from its ops, the first ones it ran.
  BatchRun timeline;
  if (stream) {
    r.stream_trace = stream->trace();
  } else {
    std::vector<int> first = epoch_kinds(0);
    std::vector<int> stretch;
    for (std::size_t i = 0; i < first.size() && i + (rest > 0 ? 1 : 0) < first.size(); ++i) {
      stretch.push_back(first[i]);
      if (plan.recipe(first[i]).backprop) break;
    }
    if (stretch.empty()) stretch.push_back(first.back());
    timeline = model.run(stretch, model.micro_size());
    r.timeline = &timeline;
  }

  if (chakra) {
    const ChakraCounts c = write_chakra_traces(chakra->path(), spec.name, model, timeline);
    if (!options.quiet)
      std::printf("Chakra traces of the timeline stretch: %s/%s.<device>.et (%d files)\n",
                  options.chakra_dir.c_str(), spec.name.c_str(), model.layout().devices);
    (void)c;
  }
  // The run's cycles at the clock of its first accelerator, checked before anything is
  // written; none if no device has a clock of trainsim's (only seconds then).
  model.price_work(r.totals);  // the sums are complete
  const PipelineEpoch& t = r.totals;
  double clock_ghz = 0;
  for (const DeviceSpec& d : spec.system.devices)
    if (!d.model) {
      clock_ghz = d.accelerator.clock_ghz;
      break;
    }
  std::optional<std::int64_t> total_cycles;
  if (clock_ghz > 0)
    total_cycles = checked_round(t.time_s * clock_ghz * 1e9,
                                 {"training.epochs", static_cast<double>(spec.training.epochs),
                                  "the run's training", "cycles"});
  write_text_file(out.file("config.resolved.yaml"), resolved_yaml(spec));
  write_text_file(out.file("stages.csv"), stages_csv(r));
  write_text_file(out.file("devices.csv"), devices_csv(r));
  write_text_file(out.file("links.csv"), links_csv(r));
  write_text_file(out.file("epochs.csv"), system_epochs_csv(r));
  write_text_file(out.file("timeline.json"), chrome_trace_json(r));
  write_text_file(out.file("stats.json"), system_stats_json(r));
  if (options.report) add_report(out);
  out.commit();
  if (chakra) chakra->commit();

  RunResult result;
  result.has_accuracy = real;
  result.test_accuracy = real ? r.metrics.back().test.accuracy : 0;
  result.clock_ghz = clock_ghz;
  result.seconds = t.time_s;
  result.cycles = total_cycles;
  result.energy_unit = device_energy_unit(spec);
  result.has_utilization = false;
  for (const DeviceSpec& d : spec.system.devices) result.has_utilization |= !d.model;
  for (int d = 0; d < model.layout().devices; ++d) {
    result.energy += device_energy(t, d);
    result.dram_bytes += static_cast<std::int64_t>(device_memory_bytes(spec, t, d));
  }
  for (std::size_t e = 0; e < r.epochs.size(); ++e) {
    RunResult::Epoch re;
    re.test_accuracy = real ? r.metrics[e].test.accuracy : -1;
    re.seconds = r.epochs[e].time_s;
    // Time per training sample (compare's step table): a per-sample technique's own steps.
    re.step_seconds =
        stream && step_s[e] >= 0 ? step_s[e] : r.epochs[e].time_s / static_cast<double>(trained);
    if (real) re.hit_rate = r.metrics[e].technique.hit_rate();
    result.epochs.push_back(re);
  }
  // The figures in full, then the final line short enough for 80 columns with its path.
  if (!options.quiet)
    std::fputs(
        wrap_parts({sformat("totals: %.6g s of training, idle %.1f%%", result.seconds,
                            100 * idle_fraction(t)),
                    sformat("device energy %.6g %s", result.energy, result.energy_unit.c_str()),
                    sformat("links %.6g pJ", link_energy_pj(t))})
            .c_str(),
        stdout);
  if (options.final_line)
    std::printf(
        "final: %s%s on %d device%s (%s); results in %s/\n",
        real ? ("test accuracy " + fmt("%.2f%%", 100 * result.test_accuracy) + ", ").c_str() : "",
        readable_seconds(result.seconds).c_str(), model.layout().devices,
        model.layout().devices == 1 ? "" : "s",
        streamed ? "timed from its ops" : spec.pipeline.schedule.c_str(), out.final_dir().c_str());
  return result;
}

}  // namespace trainsim
