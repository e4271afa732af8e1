// `trainsim compare`: one experiment, same seed, across dataflows and/or techniques, or, for an
// experiment with a `hype:` system, across its policies (--systems). Each variant is a full
// `trainsim run` into DIR/<variant>/; DIR/compare.csv lists cycles, energy, DRAM traffic,
// utilization and accuracy (systems: seconds, throughput, energy, power, cap violations), each
// also relative to the first variant.
#include <algorithm>
#include <cstdio>
#include <optional>
#include <sstream>

#include "sim/cli/commands.h"
#include "sim/cli/experiment_args.h"
#include "sim/core/csv.h"
#include "sim/core/error.h"
#include "sim/core/format.h"
#include "sim/core/terminal_lines.h"
#include "sim/data/dataset_registry.h"
#include "sim/io/memo_store.h"
#include "sim/io/staged_dir.h"
#include "sim/report/html/report.h"
#include "sim/report/units.h"
#include "sim/run/experiment_file.h"
#include "sim/run/experiment_runner.h"
#include "sim/sweep/sweep_points.h"

namespace po = boost::program_options;

namespace trainsim {

namespace {

std::vector<std::string> split_list(const std::string& text, const std::string& what) {
  std::vector<std::string> items;
  std::stringstream ss(text);
  for (std::string item; std::getline(ss, item, ',');) {
    if (item.empty()) throw UserError(what + ": empty item in '" + text + "'");
    items.push_back(item);
  }
  if (items.empty()) throw UserError(what + ": no items");
  return items;
}

struct Variant {
  std::string name, dataflow, technique;
  std::vector<std::string> overrides;  ///< what makes the variant (its point's overrides)
  RunResult result;
};

// An axis of one key, e.g. dataflow: ws, os, is, rs.
SweepAxis one_key_axis(const std::string& key, const std::vector<std::string>& values) {
  SweepAxis axis;
  axis.keys = {key};
  for (const std::string& v : values) axis.values.push_back({v});
  return axis;
}

double rel(double x, double base) {
  return base != 0 ? x / base : 0.0;
}

// One line per finished variant (the run itself prints nothing in compare).
std::string variant_line(const RunResult& r) {
  char line[256];
  std::snprintf(line, sizeof line, "%.6g s), energy %.4g %s%s", r.seconds, r.energy,
                r.energy_unit.c_str(), r.has_accuracy ? "" : ", shape only");
  // A system without one clock (hype:) has seconds only.
  std::string out =
      (r.cycles ? std::to_string(*r.cycles) + " cycles (" : "training (") + std::string(line);
  if (r.has_accuracy) out += ", test accuracy " + fmt("%.2f", 100 * r.test_accuracy) + "%";
  return out;
}

// The three tables of Purkayastha et al. 2025 (Tables II-IV) plus hit rates, one column per
// variant, one row per epoch: cumulative training time, test accuracy, and time per sample step.
// Printed and written as CSV next to compare.csv.
void write_technique_tables(const std::vector<Variant>& variants, StagedDir& out, bool show) {
  struct Table {
    const char* file;
    const char* title;
    const char* unit;
    double (*value)(const RunResult&, std::size_t);
  };
  const Table tables[] = {
      {"table_time.csv", "Execution time (training, cumulative)", "ms",
       [](const RunResult& r, std::size_t e) {
         double t = 0;
         for (std::size_t i = 0; i <= e; ++i) t += r.epochs[i].seconds;
         return 1e3 * t;
       }},
      {"table_accuracy.csv", "Test accuracy", "%",
       [](const RunResult& r, std::size_t e) {
         return r.has_accuracy ? 100 * r.epochs[e].test_accuracy : -1.0;
       }},
      {"table_step.csv", "Time per sample step", "us",
       [](const RunResult& r, std::size_t e) { return r.epochs[e].step_seconds * 1e6; }},
      {"table_hit_rate.csv", "Speculation hit rate", "",
       [](const RunResult& r, std::size_t e) { return r.epochs[e].hit_rate; }},
  };
  const std::size_t epochs = variants.front().result.epochs.size();
  bool speculates = false;
  for (const Variant& v : variants)
    for (const auto& e : v.result.epochs) speculates = speculates || e.hit_rate >= 0;
  std::vector<std::string> columns = {"epoch"};
  for (const Variant& v : variants) columns.push_back(v.name);
  // The terminal keeps to 80 columns and to short runs: at most kBlock variants side by side
  // (more wrap into further blocks), and a run of more than kMaxEpochs epochs leaves its
  // per-epoch tables to the CSV files.
  constexpr std::size_t kBlock = 4, kMaxEpochs = 10;
  const bool print_epochs = show && epochs <= kMaxEpochs;
  for (const Table& t : tables) {
    // Hit rates only mean something when a variant speculates: the file is always written
    // (tools/plot reads the four tables together), the table printed only then.
    const bool print =
        print_epochs && (speculates || std::string(t.file) != "table_hit_rate.csv") &&
        (variants.front().result.has_accuracy || std::string(t.file) != "table_accuracy.csv");
    CsvTable csv(columns);
    for (std::size_t e = 0; e < epochs; ++e) {
      csv.row().cell(static_cast<std::int64_t>(e + 1));
      for (const Variant& v : variants) {
        const double x = t.value(v.result, e);
        // No hit rate (no speculation) or no accuracy (shape only): an empty cell.
        if (x < 0)
          csv.cell("");
        else
          csv.num("%.6g", x);
      }
    }
    write_text_file(out.file(t.file), csv.text());
    if (!print) continue;
    std::printf("\n%s%s%s%s\n", t.title, *t.unit ? " (" : "", t.unit, *t.unit ? ")" : "");
    for (std::size_t first = 0; first < variants.size(); first += kBlock) {
      const std::size_t last = std::min(variants.size(), first + kBlock);
      std::printf("%-6s", "epoch");
      for (std::size_t k = first; k < last; ++k) std::printf(" %15.15s", variants[k].name.c_str());
      std::printf("\n");
      for (std::size_t e = 0; e < epochs; ++e) {
        std::printf("%-6zu", e + 1);
        for (std::size_t k = first; k < last; ++k) {
          const double x = t.value(variants[k].result, e);
          if (x < 0)
            std::printf(" %15s", "-");
          else
            std::printf(" %15.4f", x);
        }
        std::printf("\n");
      }
    }
  }
  if (show && !print_epochs)
    std::printf("per-epoch tables (time, accuracy, time per step%s) in %s/table_*.csv\n",
                speculates ? ", hit rate" : "", out.final_dir().c_str());
}

// --systems: the paper's figures of merit (He et al. Sec. 5): throughput, energy, energy
// efficiency (throughput per watt), average and peak power, cap violations.
void print_system_table(const std::vector<Variant>& variants, std::int64_t samples, StagedDir& out,
                        bool show) {
  const RunResult& b = variants.front().result;
  CsvTable csv({"variant", "seconds", "samples_per_s", "energy_j", "avg_w", "peak_w", "violations",
                "test_accuracy", "speedup", "energy_efficiency_rel", "avg_w_rel"});
  // 80 columns; every figure and more digits are in compare.csv. Cap violations (power
  // samples over the cap) get a column when a variant has any.
  // The same for test accuracy when a variant trained for real.
  bool violations = false, accuracy = false;
  for (const Variant& v : variants) {
    violations = violations || v.result.violations > 0;
    accuracy = accuracy || v.result.has_accuracy;
  }
  // The name column is as wide as the longest name (power-cap-dvfs), at least 10. With both
  // extra columns the peak power leaves the terminal (it stays in compare.csv), which keeps
  // the line within 80 columns.
  int name_w = 10;
  for (const Variant& v : variants) name_w = std::max(name_w, static_cast<int>(v.name.size()));
  const bool peak = !(violations && accuracy);
  if (show) {
    std::printf("%-*s %9s %9s %9s %5s ", name_w, "variant", "seconds", "samples/s", "energy_J",
                "avg_W");
    if (peak) std::printf("%6s ", "peak_W");
    if (violations) std::printf("%6s ", "viol");
    std::printf("%7s %6s", "speedup", "EE_rel");
    std::printf(accuracy ? " %6s\n" : "\n", "acc");
  }
  for (const Variant& v : variants) {
    const RunResult& r = v.result;
    const double speed = rel(b.seconds, r.seconds);
    const double ee = rel(b.energy, r.energy);  // same work: samples per joule
    csv.row()
        .cell(v.name)
        .num("%.9g", r.seconds)
        .num("%.6g", static_cast<double>(samples) / r.seconds)
        .num("%.9g", r.energy)
        .num("%.6g", r.avg_w)
        .num("%.6g", r.peak_w)
        .num("%.0f", r.violations)
        .cell(r.has_accuracy ? fmt("%.6f", r.test_accuracy) : std::string())
        .num("%.6f", speed)
        .num("%.6f", ee)
        .num("%.6f", rel(r.avg_w, b.avg_w));
    if (show) {
      std::printf("%-*s %9.4g %9.4g %9.4g %5.4g ", name_w, v.name.c_str(), r.seconds,
                  static_cast<double>(samples) / r.seconds, r.energy, r.avg_w);
      if (peak) std::printf("%6.4g ", r.peak_w);
      if (violations) std::printf("%6.0f ", r.violations);
      std::printf("%6.3fx %6.3f", speed, ee);
      std::printf(accuracy ? " %6s\n" : "\n",
                  r.has_accuracy ? fmt("%.2f%%", 100 * r.test_accuracy).c_str() : "n/a");
    }
  }
  write_text_file(out.file("compare.csv"), csv.text());
}

}  // namespace

int cmd_compare(const std::vector<std::string>& args) {
  po::options_description opts =
      experiment_options(kOptOut | kOptSet | kOptForce | kOptQuiet | kOptReport | kOptMemo);
  opts.add_options()("dataflows", po::value<std::string>()->value_name("LIST"),
                     "dataflows to compare, e.g. ws,os,is,rs")(
      "techniques", po::value<std::string>()->value_name("LIST"),
      "techniques to compare, e.g. bp,specbp@0.25 or bp,adagp-max (a technique of the "
      "experiment's own kind keeps its settings)")(
      "systems", po::value<std::string>()->value_name("LIST"),
      "for an experiment with a hype: system, its policies to compare, e.g. gpu-only,hype "
      "(hype: the paper's Case 1, energy; trainsim list policies)");
  po::variables_map vm;
  const ExperimentArgs a = parse_experiment_args("compare", args, opts, &vm);
  const bool systems = vm.count("systems") > 0;
  if (!vm.count("dataflows") && !vm.count("techniques") && !systems)
    throw UserError(
        "compare: give --dataflows and/or --techniques, or --systems (see trainsim compare "
        "--help)");
  if (systems && (vm.count("dataflows") || vm.count("techniques")))
    throw UserError(
        "compare: --systems compares a hype: system's policies; it does not go "
        "with --dataflows or --techniques");

  // Validate the experiment (and every variant) before anything runs.
  const ExperimentSpec base = load_experiment(a.path, a.overrides);
  if (systems && !base.hype)
    throw UserError("compare --systems: experiment '" + base.name +
                    "' has no hype: system whose policies to compare");
  const std::vector<std::string> dfs =
      vm.count("dataflows") ? split_list(vm["dataflows"].as<std::string>(), "--dataflows")
                            : std::vector<std::string>{base.sim.dataflow};
  const std::vector<std::string> techs =
      vm.count("techniques") ? split_list(vm["techniques"].as<std::string>(), "--techniques")
                             : std::vector<std::string>{base.sim.technique.label()};
  // The variants are the points of a sweep over compare's axes (sim/sweep/sweep_points.h:
  // the grid in row-major order, each point the experiment with its --set overrides), run one
  // after another in this process: techniques times dataflows, or a hype system's policies.
  SweepSpec grid;
  grid.source = grid.experiment = a.path;
  grid.set = a.overrides;
  if (systems)
    grid.axes = {
        one_key_axis("hype.policy", split_list(vm["systems"].as<std::string>(), "--systems"))};
  else
    grid.axes = {one_key_axis("technique", techs), one_key_axis("dataflow", dfs)};
  std::vector<Variant> variants;
  for (const SweepPoint& p : sweep_points(grid)) {
    Variant v;
    v.overrides = p.overrides(grid);
    if (systems) {
      v.name = p.values[0].second;
    } else {
      v.technique = p.values[0].second, v.dataflow = p.values[1].second;
      v.name = techs.size() > 1 && dfs.size() > 1 ? v.technique + "-" + v.dataflow
                                                  : (dfs.size() > 1 ? v.dataflow : v.technique);
    }
    variants.push_back(v);
  }
  const std::string dir =
      vm.count("out") ? vm["out"].as<std::string>() : "runs/" + base.name + "-compare";
  auto variant_overrides = [&](const Variant& v, const std::string& out_dir) {
    std::vector<std::string> o = v.overrides;  // the user's --set, then the point's values
    o.push_back("output.dir=" + out_dir);
    return o;
  };
  // Everything a run checks before its first batch (e.g. that a store fits the buffer), for
  // every variant: a bad one fails the compare before the good ones have run.
  for (const Variant& v : variants)
    check_experiment(load_experiment(a.path, variant_overrides(v, dir)), /*simulate=*/true);
  check_memo_outside(a, dir, "compare");
  std::optional<MemoScope> memo;  // op costs kept across processes (sim/io/memo_store.h)
  if (!a.memo.empty()) memo.emplace(a.memo);

  StagedDir out(dir, a.force ? StagedDir::Mode::kReplace : StagedDir::Mode::kNew, "compare");
  // -q: only the final line (the variants' tables are in compare.csv and the table_*.csv).
  if (!a.quiet)
    std::fputs(
        wrap_parts({sformat("trainsim compare: %s, %zu variant(s), seed %llu", base.name.c_str(),
                            variants.size(), static_cast<unsigned long long>(base.training.seed)),
                    "results in " + out.final_dir() + "/"})
            .c_str(),
        stdout);
  if (!a.quiet) print_notes(base);
  for (std::size_t i = 0; i < variants.size(); ++i) {
    Variant& v = variants[i];
    const std::string label =
        "variant " + std::to_string(i + 1) + "/" + std::to_string(variants.size()) + " " + v.name;
    if (!a.quiet) std::printf("--- %s\n", label.c_str());
    const ExperimentSpec spec = load_experiment(a.path, variant_overrides(v, out.file(v.name)));
    for (const std::string& n : spec.notes)
      if (!a.quiet && std::find(base.notes.begin(), base.notes.end(), n) == base.notes.end())
        std::printf("note: %s\n", n.c_str());
    std::fflush(stdout);
    RunOptions run;
    run.simulate = true;
    run.quiet = true;
    run.label = label;
    run.epoch_lines = !a.quiet;
    run.final_line = false;
    run.keep_incomplete = false;  // the compare directory appears whole or not at all
    run.report = a.report;
    v.result = run_experiment(spec, run);
    if (!a.quiet) std::printf("    %s\n", variant_line(v.result).c_str());
  }

  if (systems) {
    print_system_table(
        variants,
        base.training.trained_samples(dataset_shape(base.dataset).train) * base.training.epochs,
        out, !a.quiet);
    if (a.report) add_report(out);
    out.commit();
    std::printf("wrote compare.csv%s and a directory per variant into %s/\n",
                a.report ? ", report.html" : "", out.final_dir().c_str());
    return 0;
  }
  const RunResult& b = variants.front().result;
  const std::string unit = b.energy_unit;
  CsvTable csv({"variant", "dataflow", "technique", "cycles", "seconds",
                energy_column("energy", unit), "energy_unit", "dram_bytes", "utilization",
                "compute_utilization", "test_accuracy", "speedup", "cycles_rel", "energy_rel",
                "dram_rel", "utilization_rel", energy_column("memory_energy", unit),
                "memory_energy_rel"});
  // 80 columns: figures beyond a column's width (a zoo network's 90-epoch schedule runs
  // 1e14 cycles and moves petabytes) switch to 4 significant digits; compare.csv has them
  // all, with the DRAM ratio.
  if (!a.quiet)
    std::printf("%-15s %9s %8s %11s %8s %8s %6s %8s\n", "variant", "cycles", "speedup",
                ("energy_" + energy_suffix(unit)).c_str(), "energy_r", "DRAM MB", "util",
                "test_acc");
  // One format for the whole column: exact while every variant's cycles fit 9 digits.
  bool big_cycles = false;
  for (const Variant& v : variants)
    big_cycles = big_cycles || (v.result.cycles && *v.result.cycles >= 1'000'000'000);
  for (const Variant& v : variants) {
    const RunResult& r = v.result;
    csv.row()
        .cell(v.name)
        .cell(v.dataflow)
        .cell(v.technique)
        .cell(r.cycles ? std::to_string(*r.cycles) : std::string())
        .num("%.9g", r.seconds)
        .num("%.6e", r.energy)
        .cell(r.energy_unit)
        .cell(r.dram_bytes)
        .num("%.6f", r.utilization)
        .num("%.6f", r.compute_utilization)
        // shape-only runs have no accuracy: an empty cell, "n/a" on screen
        .cell(r.has_accuracy ? fmt("%.6f", r.test_accuracy) : std::string())
        // Speedup in time: variants may differ in clock, or have none (hype:).
        .num("%.6f", rel(b.seconds, r.seconds))
        .cell(r.cycles && b.cycles
                  ? fmt("%.6f", rel(static_cast<double>(*r.cycles), static_cast<double>(*b.cycles)))
                  : std::string())
        .num("%.6f", rel(r.energy, b.energy))
        .num("%.6f", rel(static_cast<double>(r.dram_bytes), static_cast<double>(b.dram_bytes)))
        .num("%.6f", rel(r.utilization, b.utilization))
        .num("%.6e", r.memory_energy)
        .num("%.6f", rel(r.memory_energy, b.memory_energy));
    char acc[32];
    if (r.has_accuracy)
      std::snprintf(acc, sizeof acc, "%.2f%%", 100 * r.test_accuracy);
    else
      std::snprintf(acc, sizeof acc, "n/a");
    const double dram_mb = static_cast<double>(r.dram_bytes) / 1e6;
    char dram[32];
    std::snprintf(dram, sizeof dram, dram_mb < 1e6 ? "%.1f" : "%.3g", dram_mb);
    std::string cycles = "-";
    if (r.cycles)
      cycles = big_cycles ? fmt("%.4g", static_cast<double>(*r.cycles)) : std::to_string(*r.cycles);
    const std::string util = r.has_utilization ? fmt("%.1f%%", 100 * r.utilization) : "-";
    if (!a.quiet)
      std::printf("%-15s %9s %7.3fx %11.4g %8.3f %8s %6s %8s\n", v.name.c_str(), cycles.c_str(),
                  rel(b.seconds, r.seconds), r.energy, rel(r.energy, b.energy), dram, util.c_str(),
                  acc);
  }
  write_text_file(out.file("compare.csv"), csv.text());
  if (techs.size() > 1) write_technique_tables(variants, out, !a.quiet);
  if (a.report) add_report(out);
  out.commit();
  std::printf("wrote compare.csv%s and a directory per variant into %s/\n",
              a.report ? ", report.html" : "", out.final_dir().c_str());
  return 0;
}

}  // namespace trainsim
