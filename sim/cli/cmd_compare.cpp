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

double rel(double x, double base) {
  return base != 0 ? x / base : 0.0;
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
                             : std::vector<std::string>{base.sim.technique};
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
    const ExperimentSpec spec = load_experiment(a.path, variant_overrides(v, out.file(v.name)));
    v.result = run_experiment(spec, RunOptions{true, true});
  }

  const RunResult& b = variants.front().result;
  std::string csv =
      "variant,dataflow,technique,cycles,seconds,energy,energy_unit,dram_bytes,utilization,"
      "test_accuracy,speedup,cycles_rel,energy_rel,dram_rel,utilization_rel\n";
  std::printf("%-14s %14s %10s %12s %12s %7s %8s %8s %8s\n", "variant", "cycles", "speedup",
              "energy", "DRAM MB", "util", "energy_r", "dram_r", "test_acc");
  for (const Variant& v : variants) {
    const RunResult& r = v.result;
    char line[512];
    std::snprintf(
        line, sizeof line, "%s,%s,%s,%lld,%.9g,%.6e,%s,%lld,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f\n",
        v.name.c_str(), v.dataflow.c_str(), v.technique.c_str(), static_cast<long long>(r.cycles),
        r.seconds, r.energy, r.energy_unit.c_str(), static_cast<long long>(r.dram_bytes),
        r.utilization, r.test_accuracy,
        rel(static_cast<double>(b.cycles), static_cast<double>(r.cycles)),
        rel(static_cast<double>(r.cycles), static_cast<double>(b.cycles)), rel(r.energy, b.energy),
        rel(static_cast<double>(r.dram_bytes), static_cast<double>(b.dram_bytes)),
        rel(r.utilization, b.utilization));
    csv += line;
    std::printf("%-14s %14lld %9.3fx %12.4g %12.3f %6.1f%% %8.3f %8.3f %7.2f%%\n", v.name.c_str(),
                static_cast<long long>(r.cycles),
                rel(static_cast<double>(b.cycles), static_cast<double>(r.cycles)), r.energy,
                static_cast<double>(r.dram_bytes) / 1e6, 100 * r.utilization,
                rel(r.energy, b.energy),
                rel(static_cast<double>(r.dram_bytes), static_cast<double>(b.dram_bytes)),
                100 * r.test_accuracy);
  }
  write_text_file(out.file("compare.csv"), csv);
  out.commit();
  std::printf("wrote %s/compare.csv\n", dir.c_str());
  return 0;
}

}  // namespace trainsim
