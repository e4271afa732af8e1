// `trainsim compare`: one experiment, same seed, across dataflows and/or techniques. Each
// variant is a full `trainsim run` into DIR/<variant>/; DIR/compare.csv lists cycles,
// energy, DRAM traffic, utilization and accuracy, each also relative to the first variant.
#include <cstdio>
#include <sstream>

#include "sim/cli/commands.h"
#include "sim/cli/experiment_runner.h"
#include "sim/config/experiment_config.h"
#include "sim/core/error.h"
#include "sim/report/staged_dir.h"

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
  RunResult result;
};

// A variant of the experiment's own technique family keeps the experiment's settings: an
// ADA-GP experiment's warm-up, schedule and predictor apply to all three hardware variants,
// a specbp experiment's unit and store to every threshold. A '@' shorthand in the variant
// name still sets its parameter.
void inherit_settings(const TechniqueSpec& base, const std::string& variant, TechniqueSpec& t) {
  auto family = [](const std::string& k) { return k.rfind("adagp-", 0) == 0 ? "adagp" : k; };
  if (family(base.kind) != family(t.kind)) return;
  TechniqueSpec merged = base;
  merged.kind = t.kind;
  if (variant.find('@') != std::string::npos) {
    merged.warmup_epochs = t.warmup_epochs;
    merged.threshold = t.threshold;
  }
  t = merged;
}

double rel(double x, double base) {
  return base != 0 ? x / base : 0.0;
}

// The three tables of Purkayastha et al. 2025 (Tables II-IV) plus hit rates, one column per
// variant, one row per epoch: cumulative training time, test accuracy, and time per sample step.
// Printed and written as CSV next to compare.csv.
void write_technique_tables(const std::vector<Variant>& variants, const StagedDir& out) {
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
       [](const RunResult& r, std::size_t e) {
         return r.epochs[e].step_cycles / (r.clock_ghz * 1e3);
       }},
      {"table_hit_rate.csv", "Speculation hit rate", "",
       [](const RunResult& r, std::size_t e) { return r.epochs[e].hit_rate; }},
  };
  const std::size_t epochs = variants.front().result.epochs.size();
  bool speculates = false;
  for (const Variant& v : variants)
    for (const auto& e : v.result.epochs) speculates = speculates || e.hit_rate >= 0;
  for (const Table& t : tables) {
    // Hit rates only mean something when a variant speculates: the file is always written
    // (tools/plot reads the four tables together), the table printed only then.
    const bool print =
        (speculates || std::string(t.file) != "table_hit_rate.csv") &&
        (variants.front().result.has_accuracy || std::string(t.file) != "table_accuracy.csv");
    std::string csv = "epoch";
    if (print)
      std::printf("\n%s%s%s%s\n%-6s", t.title, *t.unit ? " (" : "", t.unit, *t.unit ? ")" : "",
                  "epoch");
    for (const Variant& v : variants) {
      csv += "," + v.name;
      if (print) std::printf(" %14s", v.name.c_str());
    }
    csv += "\n";
    if (print) std::printf("\n");
    for (std::size_t e = 0; e < epochs; ++e) {
      csv += std::to_string(e + 1);
      if (print) std::printf("%-6zu", e + 1);
      for (const Variant& v : variants) {
        const double x = t.value(v.result, e);
        if (x < 0) {  // no hit rate (no speculation) or no accuracy (shape only)
          csv += ",";
          if (print) std::printf(" %14s", "-");
          continue;
        }
        char cell[32];
        std::snprintf(cell, sizeof cell, "%.6g", x);
        csv += std::string(",") + cell;
        if (print) std::printf(" %14.4f", x);
      }
      csv += "\n";
      if (print) std::printf("\n");
    }
    write_text_file(out.file(t.file), csv);
  }
}

}  // namespace

int cmd_compare(const std::vector<std::string>& args) {
  po::options_description opts = experiment_options("compare");
  opts.add_options()("dataflows", po::value<std::string>(), "ws,os,is,rs")(
      "techniques", po::value<std::string>(), "bp,...");
  po::variables_map vm;
  const ExperimentArgs a = parse_experiment_args("compare", args, opts, &vm);
  if (!vm.count("dataflows") && !vm.count("techniques"))
    throw UserError("compare: give --dataflows and/or --techniques");

  // Validate the experiment (and every variant) before anything runs.
  const ExperimentSpec base = load_experiment(a.path, a.overrides);
  const std::vector<std::string> dfs =
      vm.count("dataflows") ? split_list(vm["dataflows"].as<std::string>(), "--dataflows")
                            : std::vector<std::string>{base.sim.dataflow};
  const std::vector<std::string> techs =
      vm.count("techniques") ? split_list(vm["techniques"].as<std::string>(), "--techniques")
                             : std::vector<std::string>{base.sim.technique.label()};
  std::vector<Variant> variants;
  for (const auto& t : techs)
    for (const auto& d : dfs) {
      Variant v;
      v.dataflow = d;
      v.technique = t;
      v.name = techs.size() > 1 && dfs.size() > 1 ? t + "-" + d : (dfs.size() > 1 ? d : t);
      variants.push_back(v);
    }
  const std::string dir =
      vm.count("out") ? vm["out"].as<std::string>() : "runs/" + base.name + "-compare";
  auto variant_overrides = [&](const Variant& v, const std::string& out_dir) {
    std::vector<std::string> o = a.overrides;
    o.push_back("dataflow=" + v.dataflow);
    o.push_back("technique=" + v.technique);
    o.push_back("output.dir=" + out_dir);
    return o;
  };
  for (const Variant& v : variants) load_experiment(a.path, variant_overrides(v, dir));

  StagedDir out(dir);
  std::printf("trainsim compare: %s, %zu variant(s), seed %llu, results in %s/\n",
              base.name.c_str(), variants.size(),
              static_cast<unsigned long long>(base.training.seed), dir.c_str());
  for (Variant& v : variants) {
    std::printf("--- %s\n", v.name.c_str());
    std::fflush(stdout);
    ExperimentSpec spec = load_experiment(a.path, variant_overrides(v, out.file(v.name)));
    inherit_settings(base.sim.technique, v.technique, spec.sim.technique);
    v.result = run_experiment(spec, RunOptions{true, true});
  }

  const RunResult& b = variants.front().result;
  std::string csv =
      "variant,dataflow,technique,cycles,seconds,energy,energy_unit,dram_bytes,utilization,"
      "test_accuracy,speedup,cycles_rel,energy_rel,dram_rel,utilization_rel,memory_energy,"
      "memory_energy_rel\n";
  // Wide columns: a zoo network's 90-epoch schedule moves petabytes, a test run kilobytes.
  std::printf("%-16s %16s %10s %12s %12s %7s %8s %8s %8s\n", "variant", "cycles", "speedup",
              "energy", "DRAM MB", "util", "energy_r", "dram_r", "test_acc");
  for (const Variant& v : variants) {
    const RunResult& r = v.result;
    char line[512], acc[32] = "";  // shape-only runs have no accuracy: empty cell, "n/a"
    if (r.has_accuracy) std::snprintf(acc, sizeof acc, "%.6f", r.test_accuracy);
    std::snprintf(
        line, sizeof line,
        "%s,%s,%s,%lld,%.9g,%.6e,%s,%lld,%.6f,%s,%.6f,%.6f,%.6f,%.6f,%.6f,%.6e,%.6f\n",
        v.name.c_str(), v.dataflow.c_str(), v.technique.c_str(), static_cast<long long>(r.cycles),
        r.seconds, r.energy, r.energy_unit.c_str(), static_cast<long long>(r.dram_bytes),
        r.utilization, acc, rel(static_cast<double>(b.cycles), static_cast<double>(r.cycles)),
        rel(static_cast<double>(r.cycles), static_cast<double>(b.cycles)), rel(r.energy, b.energy),
        rel(static_cast<double>(r.dram_bytes), static_cast<double>(b.dram_bytes)),
        rel(r.utilization, b.utilization), r.memory_energy, rel(r.memory_energy, b.memory_energy));
    csv += line;
    if (r.has_accuracy)
      std::snprintf(acc, sizeof acc, "%.2f%%", 100 * r.test_accuracy);
    else
      std::snprintf(acc, sizeof acc, "n/a");
    const double dram_mb = static_cast<double>(r.dram_bytes) / 1e6;
    char dram[32];
    std::snprintf(dram, sizeof dram, dram_mb < 1e8 ? "%.1f" : "%.4g", dram_mb);
    std::printf("%-16s %16lld %9.3fx %12.4g %12s %6.1f%% %8.3f %8.3f %8s\n", v.name.c_str(),
                static_cast<long long>(r.cycles),
                rel(static_cast<double>(b.cycles), static_cast<double>(r.cycles)), r.energy, dram,
                100 * r.utilization, rel(r.energy, b.energy),
                rel(static_cast<double>(r.dram_bytes), static_cast<double>(b.dram_bytes)), acc);
  }
  write_text_file(out.file("compare.csv"), csv);
  if (techs.size() > 1) write_technique_tables(variants, out);
  out.commit();
  std::printf("wrote %s/compare.csv\n", dir.c_str());
  return 0;
}

}  // namespace trainsim
