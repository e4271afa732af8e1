// `trainsim replay PREFIX --system SYSTEM`: Chakra traces, PREFIX.0.et ... PREFIX.(N-1).et as
// trainsim and Chakra's tools name them, run on a system of N devices (docs/interop.md,
// "Running a trace"; what each node costs: sim/pipeline/trace_replay.h).
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>

#include "sim/cli/arg_parse.h"
#include "sim/cli/commands.h"
#include "sim/core/error.h"
#include "sim/core/format.h"
#include "sim/devices/system_config.h"
#include "sim/interop/chakra_trace.h"
#include "sim/io/file_set.h"
#include "sim/io/staged_dir.h"
#include "sim/pipeline/trace_replay.h"
#include "sim/report/html/report.h"
#include "sim/report/replay_report.h"

namespace po = boost::program_options;

namespace trainsim {

namespace {

std::string trace_file(const std::string& prefix, int device) {
  return prefix + "." + std::to_string(device) + ".et";
}

// PREFIX.0.et ... PREFIX.(devices-1).et, each there, and no PREFIX.<devices>.et.
std::vector<std::string> trace_files(const std::string& prefix, const SystemSpec& system) {
  const int devices = static_cast<int>(system.devices.size());
  const std::string count = std::to_string(devices) + (devices == 1 ? " device" : " devices");
  std::error_code ec;
  std::vector<std::string> files;
  for (int d = 0; d < devices; ++d) {
    const std::string f = trace_file(prefix, d);
    if (!std::filesystem::is_regular_file(f, ec))
      throw UserError(f + ": no such trace; system '" + system.name + "' has " + count +
                      ", so the replay needs " + trace_file(prefix, 0) + " ... " +
                      trace_file(prefix, devices - 1));
    files.push_back(f);
  }
  const std::string extra = trace_file(prefix, devices);
  if (std::filesystem::exists(extra, ec))
    throw UserError(extra + ": a trace for device " + std::to_string(devices) + ", but system '" +
                    system.name + "' has " + count);
  return files;
}

void print_summary(const ReplayContext& c, const ReplayResult& r) {
  std::printf(
      "%s: %lld nodes on %zu device(s) of system %s (%s), %lld dependencies, %lld "
      "transfers, timing: %s\n",
      c.prefix.c_str(), static_cast<long long>(r.nodes), r.devices.size(), c.system.c_str(),
      c.topology.c_str(), static_cast<long long>(r.dependencies),
      static_cast<long long>(r.transfers), replay_timing_name(c.timing));
  std::printf("%6s  %-12s  %-11s  %6s  %6s  %14s  %14s  %12s  %12s  %12s\n", "device", "name",
              "kind", "comp", "mem", "busy_s", "idle_s", "compute_J", "memory_J", "comm_J");
  for (std::size_t d = 0; d < r.devices.size(); ++d) {
    const ReplayDeviceStats& s = r.devices[d];
    // Recorded durations carry no energy: "-" rather than a zero that reads as a price.
    auto joules = [&](double j) { return s.priced_nodes > 0 ? fmt("%.6g", j) : std::string("-"); };
    std::printf("%6zu  %-12s  %-11s  %6lld  %6lld  %14.6g  %14.6g  %12s  %12s  %12.6g\n", d,
                c.device_names[d].c_str(), c.device_kinds[d].c_str(),
                static_cast<long long>(s.comp_nodes), static_cast<long long>(s.mem_nodes),
                static_cast<double>(s.busy_ps) * 1e-12,
                static_cast<double>(r.makespan_ps - s.busy_ps) * 1e-12, joules(s.compute_j).c_str(),
                joules(s.memory_j).c_str(), s.comm_j);
  }
  std::printf("makespan %.9g s (%lld ps)\n", static_cast<double>(r.makespan_ps) * 1e-12,
              static_cast<long long>(r.makespan_ps));
}

}  // namespace

int cmd_replay(const std::vector<std::string>& args) {
  po::options_description opts;
  opts.add_options()("system", po::value<std::string>(),
                     "the system to run on: a preset of configs/systems/ or a system file")(
      "timing", po::value<std::string>()->default_value("device"),
      "device: COMP and MEM nodes priced by the device's model; trace: their recorded "
      "durations")("out,o", po::value<std::string>(),
                   "write stats.json and devices.csv into this directory")(
      "force,f", po::bool_switch(), "replace an existing results directory at --out")(
      "json", po::bool_switch(), "print stats.json's content instead of the table")(
      "quiet,q", po::bool_switch(), "print nothing but errors");
  po::options_description hidden;
  hidden.add_options()("prefix", po::value<std::vector<std::string>>());
  po::positional_options_description pos;
  pos.add("prefix", -1);
  const po::variables_map vm = parse_args("replay", args, opts, pos, hidden);
  if (!vm.count("prefix")) throw UserError("replay: missing PREFIX (see trainsim replay --help)");
  const auto prefixes = vm["prefix"].as<std::vector<std::string>>();
  if (prefixes.size() != 1) throw UserError("replay: give one PREFIX");
  if (!vm.count("system")) throw UserError("replay: missing --system SYSTEM");
  ReplayTiming timing = ReplayTiming::kDevice;
  const std::string timing_text = vm["timing"].as<std::string>();
  if (!parse_replay_timing(timing_text, timing))
    throw UserError("replay: --timing '" + timing_text + "' is neither device nor trace");

  // Every input is read and checked before the output directory exists.
  const SystemSpec system = load_system(vm["system"].as<std::string>());
  const std::string& prefix = prefixes[0];
  const std::vector<std::string> files = trace_files(prefix, system);
  std::vector<ChakraTrace> traces;
  for (const std::string& f : files) traces.push_back(read_chakra_trace(f));
  std::vector<std::unique_ptr<DeviceModel>> models;
  std::vector<DeviceModel*> devices;
  ReplayContext c;
  c.prefix = prefix;
  c.system = system.name;
  c.system_source = system.source;
  c.topology = system.topology;
  c.timing = timing;
  for (const DeviceSpec& d : system.devices) {
    if (!d.model && d.accelerator.energy.unit != "pJ")
      throw UserError(d.where + ": accelerator '" + d.accelerator.name +
                      "' has an energy table in " + d.accelerator.energy.unit +
                      " units; a replay prices energy in joules and needs one in pJ");
    models.push_back(entry_device_model(d)->build());
    devices.push_back(models.back().get());
    c.device_names.push_back(models.back()->name());
    c.device_kinds.push_back(models.back()->kind());
  }
  std::optional<StagedDir> out;
  if (vm.count("out"))
    out.emplace(vm["out"].as<std::string>(),
                vm["force"].as<bool>() ? StagedDir::Mode::kReplace : StagedDir::Mode::kNew,
                "replay");
  const Interconnect net(system.net);
  const ReplayResult r = replay_traces(files, traces, devices, net, timing);

  const nlohmann::ordered_json stats = replay_stats_json(c, r);
  if (out) {
    write_text_file(out->file("stats.json"), stats.dump(2) + "\n");
    write_text_file(out->file("devices.csv"), replay_devices_csv(c, r));
    add_report(*out);  // from the files just written, as every results directory has one
    out->commit();
  }
  if (vm["json"].as<bool>())
    std::printf("%s\n", stats.dump(2).c_str());
  else if (!vm["quiet"].as<bool>())
    print_summary(c, r);
  return 0;
}

}  // namespace trainsim
