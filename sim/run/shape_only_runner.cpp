// `trainsim run` for numerics: none: times a training schedule from the network's shapes
// (sim/train/shape_only_run.h) and writes its output directory (staged, like a real run):
//   config.resolved.yaml
//   epochs.csv        per epoch: batches of each kind, training cycles, seconds, DRAM
//                     bytes, energy (total and memory), evaluation cycles and energy
//   phases.csv        per batch kind and size: how many, and the cost of one and of all
//   batch_layers.csv  per layer x role: the ops of the simulated batches (one of each kind
//                     and size), as layers.csv of a real run
//   stats.json        the same as one tree, plus the network's size and the hardware added
#include <cstdio>
#include <utility>

#include "sim/accel/energy.h"
#include "sim/core/csv.h"
#include "sim/core/error.h"
#include "sim/core/format.h"
#include "sim/core/terminal_lines.h"
#include "sim/data/dataset_registry.h"
#include "sim/io/staged_dir.h"
#include "sim/report/epoch_table.h"
#include "sim/report/html/readable.h"
#include "sim/report/html/report.h"
#include "sim/report/run_report.h"
#include "sim/report/run_timeline.h"
#include "sim/report/stats_header.h"
#include "sim/report/units.h"
#include "sim/run/experiment_file.h"
#include "sim/run/experiment_runner.h"
#include "sim/train/shape_only_run.h"
#include "sim/workload/net_shape.h"

namespace trainsim {

namespace {

// epochs.csv: the common columns, one `<kind>_batches` column per kind of batch the technique
// declares (its ShapeOnlyPlan's recipes), then the accelerator's figures.
std::string epochs_csv(const ShapeOnlyResult& r, const AcceleratorSpec& acc,
                       std::int64_t train_samples) {
  const std::string& u = acc.energy.unit;
  std::vector<std::string> columns;
  for (const std::string& k : r.kind_names) columns.push_back(k + "_batches");
  for (std::string c :
       {std::string("cycles"), std::string("dram_bytes"), energy_column("memory_energy", u),
        std::string("eval_cycles"), energy_column("eval_energy", u)})
    columns.push_back(c);
  EpochTable table(u, columns);
  for (std::size_t e = 0; e < r.epochs.size(); ++e) {
    const ShapeOnlyEpoch& ep = r.epochs[e];
    EpochCells c;
    c.epoch = static_cast<std::int64_t>(e + 1);
    c.seconds = static_cast<double>(ep.train.elapsed_cycles) / (acc.clock_ghz * 1e9);
    if (c.seconds > 0) c.samples_per_second = static_cast<double>(train_samples) / c.seconds;
    c.energy = ep.train.energy.total();
    auto& row = table.row(c);
    for (std::int64_t n : ep.batches) row.cell(n);
    row.cell(ep.train.elapsed_cycles)
        .cell(ep.train.stats.dram_bytes())
        .num("%.6e", ep.train.energy.memory())
        .cell(ep.eval.elapsed_cycles)
        .num("%.6e", ep.eval.energy.total());
  }
  return table.text();
}

std::string phases_csv(const ShapeOnlyResult& r, const AcceleratorSpec& acc) {
  const std::string& u = acc.energy.unit;
  CsvTable csv({"kind", "batch_size", "batches", "cycles_per_batch", "dram_bytes_per_batch",
                energy_column("energy_per_batch", u), energy_column("memory_energy_per_batch", u),
                "cycles", energy_column("energy", u)});
  for (const auto& [key, t] : r.per_batch) {
    const std::int64_t n = r.batch_counts.at(key);
    const OpTotals& all = r.all_batches.at(key);
    csv.row()
        .cell(r.kind_names[static_cast<std::size_t>(key.first)])
        .cell(key.second)
        .cell(n)
        .cell(t.elapsed_cycles)
        .cell(t.stats.dram_bytes())
        .num("%.6e", t.energy.total())
        .num("%.6e", t.energy.memory())
        .cell(all.elapsed_cycles)
        .num("%.6e", all.energy.total());
  }
  return csv.text();
}

std::string stats_json(const ExperimentSpec& spec, const DatasetShape& data,
                       const ShapeOnlyResult& r, const AcceleratorSession& session) {
  const AcceleratorSpec& acc = spec.sim.accelerator;
  nlohmann::ordered_json j = stats_header(RunKind::kShapeOnly, spec.name);
  j["status"] = "complete";
  j["numerics"] = spec.numerics;
  j["energy_unit"] = acc.energy.unit;
  j["accelerator"] = acc.name;
  j["dataflow"] = spec.sim.dataflow;
  j["technique"] = spec.sim.technique.label();
  j["network"] = {{"name", spec.network.name},
                  {"parameters", session.shape().param_count()},
                  {"forward_macs_per_sample", session.shape().forward_macs()}};
  j["dataset"] = {
      {"name", spec.dataset.name}, {"train_samples", data.train}, {"test_samples", data.test}};
  j["batch_size"] = spec.training.batch_size;
  j["epochs"] = spec.training.epochs;
  j["totals"]["train"] = totals_json(r.train, acc);
  j["totals"]["eval"] = totals_json(r.eval, acc);
  for (std::size_t k = 0; k < r.kinds.size(); ++k)
    j["kinds"][r.kind_names[k]] = totals_json(r.kinds[k], acc);
  for (const auto& [key, t] : r.per_batch) {
    nlohmann::ordered_json b = totals_json(t, acc);
    b["kind"] = r.kind_names[static_cast<std::size_t>(key.first)];
    b["batch_size"] = key.second;
    j["per_batch"].push_back(std::move(b));
  }
  if (session.record().phased()) {
    j["extra_storage_bytes"] = session.extra_storage_bytes();
    j["extra_pes"] = session.extra_pes();
    // The technique's own model's largest output per sample, under the key it declares.
    const TechniqueHardware::OwnModel& own = session.hardware().own_model;
    if (own.outputs_key != nullptr) j[own.outputs_key] = own.max_outputs;
  }
  for (std::size_t e = 0; e < r.epochs.size(); ++e) {
    nlohmann::ordered_json je;
    je["epoch"] = e + 1;
    for (std::size_t k = 0; k < r.kinds.size(); ++k)
      je["batches"][r.kind_names[k]] = r.epochs[e].batches[k];
    je["train"] = totals_json(r.epochs[e].train, acc);
    je["eval"] = totals_json(r.epochs[e].eval, acc);
    j["per_epoch"].push_back(std::move(je));
  }
  return j.dump(2) + "\n";
}

// The dataset's shape, checked against the network and the technique.
DatasetShape checked_shape(const ExperimentSpec& spec) {
  const DatasetShape data = dataset_shape(spec.dataset);
  const auto& in = spec.network.input;
  // A network whose branches all start at sources and end in a sink (a SCALE-Sim topology)
  // uses the dataset only for its sample counts: neither its images nor its classes.
  const NetShape shape(spec.network);
  if (shape.reads_input() &&
      (in[0] != data.channels || in[1] != data.height || in[2] != data.width))
    throw UserError("network '" + spec.network.name + "' expects input " + std::to_string(in[0]) +
                    "x" + std::to_string(in[1]) + "x" + std::to_string(in[2]) + " but dataset '" +
                    spec.dataset.name + "' has " + std::to_string(data.channels) + "x" +
                    std::to_string(data.height) + "x" + std::to_string(data.width));
  if (!shape.ends_in_sink() && spec.network.classes != data.classes)
    throw UserError("network '" + spec.network.name + "' has " +
                    std::to_string(spec.network.classes) + " classes but dataset '" +
                    spec.dataset.name + "' has " + std::to_string(data.classes));
  check_shape_only_technique(spec);
  if (data.train > 0) spec.training.epoch_batches(data.train);  // drop_last leaves a batch
  return data;
}

}  // namespace

std::string check_shape_only_experiment(const ExperimentSpec& spec) {
  const DatasetShape data = checked_shape(spec);
  AcceleratorSession session(spec);  // builds the lowering: every op shape is checked
  const AcceleratorSpec& a = spec.sim.accelerator;
  char line[512];
  std::snprintf(line, sizeof line,
                "%s: ok: network %s (%lld params, shape only) on %s (%lld train, %lld test), %d "
                "epoch(s) of batch %d, accelerator %s (%dx%d, %s), technique %s; results would "
                "go to %s/",
                spec.name.c_str(), spec.network.name.c_str(),
                static_cast<long long>(session.shape().param_count()), spec.dataset.name.c_str(),
                static_cast<long long>(data.train), static_cast<long long>(data.test),
                spec.training.epochs, spec.training.batch_size, a.name.c_str(), a.rows, a.cols,
                spec.sim.dataflow.c_str(), spec.sim.technique.label().c_str(),
                spec.output.dir.c_str());
  return line;
}

RunResult run_shape_only_experiment(const ExperimentSpec& spec, const RunOptions& options) {
  if (!options.simulate)
    throw UserError("experiment '" + spec.name +
                    "' has numerics: none, so there is nothing to train: use trainsim run");
  if (options.resume)
    throw UserError(
        "a shape-only run (numerics: none) has no checkpoint to resume: run it again with "
        "--force");
  // Everything that can fail on bad input happens before the output directory exists.
  const DatasetShape data = checked_shape(spec);
  AcceleratorSession session(spec);
  const AcceleratorSpec& acc = spec.sim.accelerator;
  if (!options.quiet) {
    std::string header =
        wrap_parts({"trainsim run: " + spec.name,
                    sformat("network %s (%lld params, shape only)", spec.network.name.c_str(),
                            static_cast<long long>(session.shape().param_count())),
                    sformat("dataset %s (%lld train, %lld test)", spec.dataset.name.c_str(),
                            static_cast<long long>(data.train), static_cast<long long>(data.test)),
                    sformat("batch %d", spec.training.batch_size),
                    sformat("epochs %d", spec.training.epochs)});
    header += wrap_parts(
        {sformat("accelerator %s (%dx%d PEs, %s, %g GHz, %d-bit)", acc.name.c_str(), acc.rows,
                 acc.cols, spec.sim.dataflow.c_str(), acc.clock_ghz, acc.word_bits),
         "technique " + spec.sim.technique.label(), "energy in " + acc.energy.unit});
    std::fputs(header.c_str(), stdout);
    print_notes(spec);
    std::fflush(stdout);
  }
  StagedDir out(spec.output.dir, options.force ? StagedDir::Mode::kReplace : StagedDir::Mode::kNew,
                "run");
  const ShapeOnlyResult r = run_shape_only(spec, data, session);
  write_text_file(out.file("config.resolved.yaml"), resolved_yaml(spec));
  // The samples an epoch trains on (training.drop_last leaves the last, partial batch out).
  const std::int64_t trained = spec.training.trained_samples(data.train);
  write_text_file(out.file("epochs.csv"), epochs_csv(r, acc, trained));
  write_text_file(out.file("phases.csv"), phases_csv(r, acc));
  write_text_file(out.file("batch_layers.csv"), run_layers_csv(session));
  write_text_file(out.file("timeline.json"), run_timeline_json(session));
  write_text_file(out.file("stats.json"), stats_json(spec, data, r, session));
  if (options.report) add_report(out);
  out.commit();

  RunResult result;
  result.has_accuracy = false;
  result.clock_ghz = acc.clock_ghz;
  result.cycles = r.train.elapsed_cycles;
  result.seconds = static_cast<double>(*result.cycles) / (acc.clock_ghz * 1e9);
  result.energy = r.train.energy.total();
  result.memory_energy = r.train.energy.memory();
  result.energy_unit = acc.energy.unit;
  result.dram_bytes = r.train.stats.dram_bytes();
  result.utilization = r.train.utilization();
  result.compute_utilization = r.train.stats.compute_utilization();
  for (const ShapeOnlyEpoch& e : r.epochs) {
    RunResult::Epoch re;
    re.test_accuracy = -1;
    re.seconds = static_cast<double>(e.train.elapsed_cycles) / (acc.clock_ghz * 1e9);
    std::int64_t batches = 0;
    for (std::int64_t n : e.batches) batches += n;
    re.step_seconds = batches > 0
                          ? static_cast<double>(e.train.elapsed_cycles - e.train.update_cycles) /
                                static_cast<double>(trained) / (acc.clock_ghz * 1e9)
                          : 0;
    result.epochs.push_back(re);
  }
  if (!options.quiet) {
    std::printf("%-9s %6s %10s %16s %14s %12s\n", "kind", "batch", "batches", "cycles/batch",
                "total cycles", "energy");
    for (const auto& [key, t] : r.per_batch) {
      const std::int64_t n = r.batch_counts.at(key);
      const OpTotals& all = r.all_batches.at(key);
      std::printf("%-9s %6d %10lld %16lld %14lld %12.4g\n",
                  r.kind_names[static_cast<std::size_t>(key.first)].c_str(), key.second,
                  static_cast<long long>(n), static_cast<long long>(t.elapsed_cycles),
                  static_cast<long long>(all.elapsed_cycles), all.energy.total());
    }
  }
  // The figures in full, then the final line short enough for 80 columns with its path.
  if (!options.quiet)
    std::fputs(
        wrap_parts({sformat("totals: %lld training cycles (%.6g s at %g GHz)",
                            static_cast<long long>(*result.cycles), result.seconds, acc.clock_ghz),
                    sformat("energy %.6g %s (memory %.6g)", result.energy,
                            result.energy_unit.c_str(), result.memory_energy),
                    sformat("DRAM %.6g GB", static_cast<double>(result.dram_bytes) / 1e9)})
            .c_str(),
        stdout);
  if (options.final_line)
    std::printf("final: %s of training, %s; shape only, no accuracy; results in %s/\n",
                readable_seconds(result.seconds).c_str(),
                readable_energy(result.energy, result.energy_unit).c_str(),
                out.final_dir().c_str());
  return result;
}

}  // namespace trainsim
