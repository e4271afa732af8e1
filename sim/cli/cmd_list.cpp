// `trainsim list`: what trainsim knows, from the registries and the shipped presets
// (nothing here is hard-coded): each with its key figures and its description.
#include <algorithm>
#include <cstdio>

#include "dataflows/registry.h"
#include "models/platform/topology.h"
#include "sim/accel/accelerator_config.h"
#include "sim/accel/memory_model.h"
#include "sim/cli/arg_parse.h"
#include "sim/cli/commands.h"
#include "sim/core/error.h"
#include "sim/core/format.h"
#include "sim/core/paths.h"
#include "sim/data/dataset_registry.h"
#include "sim/devices/device_config.h"
#include "sim/devices/system_config.h"
#include "sim/hype/policy.h"
#include "sim/nn/layer_registry.h"
#include "sim/nn/network.h"
#include "sim/optim/optimizer_registry.h"
#include "sim/pipeline/schedule.h"
#include "sim/report/html/report.h"
#include "sim/run/placements.h"
#include "sim/run/run_kinds.h"
#include "sim/techniques/technique.h"
#include "sim/workload/net_shape.h"
#include "sim/workload/network_config.h"
#include "sim/workload/network_lookup.h"

namespace po = boost::program_options;

namespace trainsim {

namespace {

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s.empty() ? "-" : s;
}

// Wide enough for the zoo's longest network name (densenet121_imagenet).
constexpr int kNameWidth = 22;

// `--names`: each entry's name alone, one a line, without headings (for scripts and shell
// completion). Set once by cmd_list before printing.
bool names_only = false;

// In names mode prints `name` and says so: the entry needs nothing else (no file read).
bool name_alone(const std::string& name) {
  if (names_only) std::printf("%s\n", name.c_str());
  return names_only;
}

void heading(const char* text) {
  if (!names_only) std::printf("%s\n", text);
}

void entry(const std::string& name, const std::string& figures, const std::string& description) {
  if (names_only) {
    std::printf("%s\n", name.c_str());
    return;
  }
  std::printf("  %-*s %s\n", kNameWidth, name.c_str(), figures.c_str());
  if (!description.empty()) std::printf("  %-*s %s\n", kNameWidth, "", description.c_str());
}

// Whether the numerics can train `net` on data trainsim has: it builds as a Network and a
// dataset with images (not shape only) has its input shape and classes.
std::string what_it_trains_on(const NetworkSpec& net) {
  std::vector<std::string> real, shapes;
  for (const DatasetSource* d : dataset_sources()) {
    const auto f = d->sample_format();
    if (f[0] != net.input[0] || f[1] != net.input[1] || f[2] != net.input[2] || f[3] != net.classes)
      continue;
    (d->declared_shape() ? shapes : real).push_back(d->name());
  }
  // Only a network some real data set fits is built to see whether every layer has numerics
  // (building allocates its weights: a zoo network's would take seconds and gigabytes).
  bool buildable = !real.empty();
  if (buildable) {
    try {
      Network<float> probe(net);
    } catch (const UserError&) {
      buildable = false;
    }
  }
  if (buildable) return "trainable on real data: " + join(real);
  return "shape only (numerics: none)" + (shapes.empty() ? "" : ": " + join(shapes));
}

void list_networks() {
  heading("networks (configs/networks): parameters, input -> classes, data");
  for (const auto& n : shipped_network_names()) {
    if (name_alone(n)) continue;  // loading and probing every network takes seconds
    const NetworkSpec net = load_network(configs_root() + "/networks/" + n + ".yaml");
    char figures[256];
    std::snprintf(figures, sizeof figures, "%10s params  %dx%dx%d -> %d, %s",
                  grouped(NetShape(net).param_count()).c_str(), net.input[0], net.input[1],
                  net.input[2], net.classes, what_it_trains_on(net).c_str());
    entry(n, figures, net.description);
  }
}

void list_accelerators() {
  heading(
      "accelerators (configs/accelerators): array, dataflow, buffer, clock, word size, DRAM, "
      "energy table");
  for (const auto& n : shipped_accelerator_names()) {
    if (name_alone(n)) continue;  // the names need no file read
    const AcceleratorSpec a = load_accelerator(n);
    char accumulator[64] = "";
    if (a.accumulator.words > 0)
      std::snprintf(accumulator, sizeof accumulator, " + %g KiB accumulator", a.accumulator_kib());
    char figures[320];
    std::snprintf(figures, sizeof figures,
                  "%dx%d %s, %g KiB buffer%s, %g GHz, %d-bit, DRAM %g GB/s, energy %s", a.rows,
                  a.cols, a.dataflow.c_str(), a.buffer_kib(), accumulator, a.clock_ghz, a.word_bits,
                  a.dram.bandwidth_gbps, a.energy.name.c_str());
    entry(n, figures, a.description);
  }
}

void list_energy_tables() {
  heading("energy tables (configs/energy): unit, MAC cost at the smallest word width");
  for (const auto& n : shipped_energy_names()) {
    if (name_alone(n)) continue;  // the names need no file read
    const EnergyTable t = load_energy_table(n);
    char figures[160];
    std::snprintf(figures, sizeof figures, "unit %s, %d-bit MAC %g", t.unit.c_str(),
                  t.mac.empty() ? 0 : t.mac.front().first,
                  t.mac.empty() ? 0 : t.mac.front().second);
    entry(n, figures, t.description);
  }
}

void list_systems() {
  heading("systems (configs/systems): devices, topology, link figures");
  for (const auto& n : shipped_system_names()) {
    if (name_alone(n)) continue;  // the names need no file read
    const SystemSpec s = load_system(n);
    std::string devices;
    for (std::size_t i = 0; i < s.devices.size();) {
      std::size_t j = i;
      while (j < s.devices.size() && s.devices[j].name() == s.devices[i].name()) ++j;
      devices +=
          (devices.empty() ? "" : " + ") + std::to_string(j - i) + "x " + s.devices[i].name();
      i = j;
    }
    char figures[256];
    std::snprintf(figures, sizeof figures, "%s, %s, %g GB/s, %g ns, %g pJ/bit", devices.c_str(),
                  s.topology.c_str(), s.link.bandwidth_gbps, s.link.latency_ns, s.link.pj_per_bit);
    entry(n, figures, "");
  }
}

void list_devices() {
  heading("device kinds:");
  for (const DeviceKind* k : device_kinds())
    entry(k->name(), k->description() + "; keys: " + join(k->keys()), "");
  heading("devices (configs/devices): kind, key figures");
  for (const auto& n : shipped_device_names()) {
    if (name_alone(n)) continue;
    const auto d = load_device(n);
    entry(n, d->kind + ": " + d->figures(), d->description);
  }
}

void list_datasets() {
  heading("datasets:");
  for (const auto* d : dataset_sources()) entry(d->name(), d->description(), "");
}

void list_optimizers() {
  heading("optimizers:");
  for (const auto& o : optimizers()) entry(o.name, o.description + "; keys: " + join(o.keys), "");
}

void list_layers() {
  heading("layer types:");
  for (const auto& l : layer_types()) entry(l.name, l.description + "; keys: " + join(l.keys), "");
}

void list_dataflows() {
  heading("dataflows:");
  for (const Dataflow* d : dataflows()) entry(d->name(), d->description(), "");
}

void list_memory_models() {
  heading("memory models (memory, accelerator.memory):");
  for (const MemoryModel* m : memory_models()) entry(m->name(), m->description(), "");
}

void list_techniques() {
  heading("techniques:");
  for (const auto& t : techniques()) entry(t.name, t.description, "");
}

void list_schedules() {
  heading("pipeline schedules:");
  for (const Schedule* s : schedules()) entry(s->name(), s->description(), "");
}

void list_topologies() {
  heading("topologies:");
  for (const Topology& t : topologies()) entry(t.name, t.description, "");
}

void list_policies() {
  heading("hype policies (hype.policy):");
  for (const PolicyInfo& p : hype_policies()) {
    if (names_only) {  // an alias is a name the key takes as well
      entry(p.name, "", "");
      for (const std::string& a : p.aliases) entry(a, "", "");
      continue;
    }
    entry(p.name,
          p.description + (p.needs_power_cap ? "; needs hype.power_cap_w" : "") +
              (p.aliases.empty() ? "" : "; also: " + join(p.aliases)),
          "");
  }
}

void list_placements() {
  for (const PlacementFamily& f : placement_families()) {
    // e.g. "placements by schedule (pipeline.schedule, run kind system), decided before the
    // run:", then what the family places.
    heading(sformat("placements by %s (%s, run kind %s), decided %s:", f.name, f.key, f.run_kind,
                    f.timing == PlacementTiming::kAhead ? "before the run" : "as it goes")
                .c_str());
    heading(("  " + f.description).c_str());
    for (const PlacementMember& m : f.members()) entry(m.name, m.description, "");
  }
}

void list_runs() {
  heading("kinds of run (stats.json's kind; the first that applies runs an experiment):");
  for (const RunKindInfo& k : run_kinds()) entry(k.name, k.description, "");
}

void list_reports() {
  heading("kinds of report.html page (the first that claims a results directory draws it):");
  for (const ReportKind& k : report_kinds()) entry(k.name, k.description, "");
}

// What `trainsim list KIND` lists, in the order `trainsim list` prints them all: every
// registry of a variation point and every folder of shipped presets.
struct ListKind {
  const char* name;
  void (*print)();
};

const std::vector<ListKind>& kinds() {
  static const std::vector<ListKind> all = {
      {"networks", list_networks},         {"datasets", list_datasets},
      {"optimizers", list_optimizers},     {"layers", list_layers},
      {"accelerators", list_accelerators}, {"energy", list_energy_tables},
      {"dataflows", list_dataflows},       {"memory", list_memory_models},
      {"techniques", list_techniques},     {"schedules", list_schedules},
      {"topologies", list_topologies},     {"systems", list_systems},
      {"devices", list_devices},           {"policies", list_policies},
      {"placements", list_placements},     {"runs", list_runs},
      {"reports", list_reports},
  };
  return all;
}

}  // namespace

std::vector<std::string> list_kinds() {
  std::vector<std::string> names;
  for (const ListKind& k : kinds()) names.push_back(k.name);
  return names;
}

int cmd_list(const std::vector<std::string>& args) {
  po::options_description hidden;
  hidden.add_options()("category", po::value<std::string>());
  po::positional_options_description pos;
  pos.add("category", 1);
  po::options_description options;
  options.add_options()("names", po::bool_switch(),
                        "only the names, one a line, without headings or figures");
  const po::variables_map vm = parse_args("list", args, options, pos, hidden);
  names_only = vm["names"].as<bool>();
  if (!vm.count("category")) {
    for (const ListKind& k : kinds()) k.print();
    return 0;
  }
  const std::string what = vm["category"].as<std::string>();
  for (const ListKind& k : kinds()) {
    if (what != k.name) continue;
    k.print();
    return 0;
  }
  throw UserError("list: unknown category '" + what + "' (expected " + join(list_kinds()) + ")");
}

}  // namespace trainsim
