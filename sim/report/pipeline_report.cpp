#include "sim/report/pipeline_report.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include <nlohmann/json.hpp>

#include "sim/accel/energy.h"
#include "sim/core/csv.h"
#include "sim/report/stats_header.h"
#include "sim/report/train_report.h"
#include "sim/report/units.h"
#include "sim/techniques/technique.h"
#include "sim/train/shape_only_run.h"

namespace trainsim {

namespace {

std::string layer_range(const SystemRunData& r, int stage) {
  const auto& first = r.model->stage_first();
  const auto& layers = r.spec->network.layers;
  const int a = first[static_cast<std::size_t>(stage)];
  const int b = first[static_cast<std::size_t>(stage) + 1] - 1;
  return std::to_string(a) + "-" + std::to_string(b) + " (" +
         layers[static_cast<std::size_t>(a)].name + ".." +
         layers[static_cast<std::size_t>(b)].name + ")";
}

std::string stage_devices(const PipelineLayout& l, int stage) {
  std::string out;
  for (int p = 0; p < l.pipes(); ++p)
    out += (out.empty() ? "" : " ") + std::to_string(l.device(p, stage));
  return out;
}

}  // namespace

double idle_fraction(const PipelineEpoch& e) {
  if (e.time_s <= 0 || e.busy_s.empty()) return 0;
  double busy = 0;
  for (double b : e.busy_s) busy += b;
  const double total = e.time_s * static_cast<double>(e.busy_s.size());
  // Time and busy seconds come from integer picoseconds summed in different orders (per step,
  // per batch kind): a device that is never idle can come out a few ulps either side.
  if (std::abs(total - busy) <= 1e-12 * total) return 0;
  return std::max(0.0, (total - busy) / total);
}

double device_energy(const PipelineEpoch& e, int device) {
  return e.device_energy[static_cast<std::size_t>(device)];
}

std::int64_t device_macs(const ExperimentSpec& spec, const PipelineEpoch& e, int device) {
  const auto d = static_cast<std::size_t>(device);
  return spec.system.devices[d].model ? e.device_priced[d].macs : e.device_work[d].stats.macs;
}

std::uint64_t device_memory_bytes(const ExperimentSpec& spec, const PipelineEpoch& e, int device) {
  const auto d = static_cast<std::size_t>(device);
  if (!spec.system.devices[d].model) return e.device_work[d].stats.dram_bytes();
  return static_cast<std::uint64_t>(std::llround(e.device_priced[d].bytes));
}

double link_energy_pj(const PipelineEpoch& e) {
  double pj = 0;
  for (const LinkTotals& c : e.channels) pj += c.energy_pj;
  return pj;
}

std::string device_energy_unit(const ExperimentSpec& spec) {
  std::string unit;
  for (const DeviceSpec& d : spec.system.devices) {
    // A device with a model prices in joules, written as pJ.
    const std::string& u = d.model ? std::string("pJ") : d.accelerator.energy.unit;
    if (unit.empty()) unit = u;
    if (unit != u) return "mixed";
  }
  return unit;
}

std::string stages_csv(const SystemRunData& r) {
  PipelineModel& m = *r.model;
  const ExperimentSpec& spec = *r.spec;
  const int micro = m.micro_size();
  CsvTable csv({"stage", "layers", "devices", "forward_cycles", "backward_data_cycles",
                "backward_weight_cycles", "update_cycles", "activation_bytes_per_sample",
                "weight_bytes", "boundary_bytes_per_micro_batch", "forward_seconds",
                "backward_data_seconds", "backward_weight_seconds", "update_seconds"});
  const PipelineLayout& l = m.layout();
  for (int s = 0; s < l.stages; ++s) {
    const int d = l.device(0, s);
    const int a = m.stage_first()[static_cast<std::size_t>(s)];
    const int b = m.stage_first()[static_cast<std::size_t>(s) + 1];
    // Cycles of the device's clock; a device with a model has none to count (empty cells).
    const bool clocked = !spec.system.devices[static_cast<std::size_t>(d)].model;
    auto cycles = [&](Pass p) {
      if (!clocked) return std::string();
      const auto w = m.costs().stage_work(d, micro, kBaseBatchKind, a, b, p);
      return std::to_string(w[0].stats.cycles() + w[1].stats.cycles());
    };
    // Seconds on every kind of device: the task's duration (units side by side take the
    // longer of the two).
    auto seconds = [&](Pass p) {
      return static_cast<double>(m.costs().stage_ps(d, micro, kBaseBatchKind, a, b, p)) * 1e-12;
    };
    Task probe;
    probe.stage = s;
    probe.device = d;
    csv.row()
        .cell(s)
        .cell(layer_range(r, s))
        .cell(stage_devices(l, s))
        .cell(cycles(Pass::kForward))
        .cell(cycles(Pass::kBackwardData))
        .cell(cycles(Pass::kBackwardWeight))
        .cell(cycles(Pass::kUpdate))
        .cell(m.stage_activation_bytes(s))
        .cell(m.stage_weight_bytes(s))
        .cell(s + 1 < l.stages ? m.edge_bytes(probe, EdgeData::kActivation, micro) : 0)
        .num("%.9g", seconds(Pass::kForward))
        .num("%.9g", seconds(Pass::kBackwardData))
        .num("%.9g", seconds(Pass::kBackwardWeight))
        .num("%.9g", seconds(Pass::kUpdate));
  }
  return csv.text();
}

std::string devices_csv(const SystemRunData& r) {
  const ExperimentSpec& spec = *r.spec;
  PipelineModel& m = *r.model;
  const PipelineEpoch& t = r.totals;
  const std::string unit = device_energy_unit(spec);
  CsvTable csv({"device", "accelerator", "dataflow", "stages", "busy_seconds", "idle_seconds",
                "idle_fraction", "peak_inflight_micro_batches", "peak_activation_bytes",
                "weight_bytes", "macs", "dram_bytes", energy_column("energy", unit), "util",
                "idle_energy_pj"});
  for (int d = 0; d < m.layout().devices; ++d) {
    const DeviceSpec& dev = spec.system.devices[static_cast<std::size_t>(d)];
    std::string stages;
    for (int p = 0; p < m.layout().pipes(); ++p)
      for (int s = 0; s < m.layout().stages; ++s)
        if (m.layout().device(p, s) == d) stages += (stages.empty() ? "" : " ") + std::to_string(s);
    const double busy = t.busy_s[static_cast<std::size_t>(d)];
    // Utilization of a PE array; a device with a model has none (empty cell).
    const double cycles = dev.model ? 0 : t.time_s * dev.accelerator.clock_ghz * 1e9;
    const double macs = static_cast<double>(device_macs(spec, t, d));
    csv.row()
        .cell(d)
        .cell(dev.name())
        .cell(dev.model ? dev.model_kind : dev.dataflow)
        .cell(stages)
        .num("%.9g", busy)
        .num("%.9g", t.time_s - busy)
        .num("%.6f", t.time_s > 0 ? 1.0 - busy / t.time_s : 0)
        // A run timed from its ops has no schedule's timeline to measure them on (empty).
        .cell(r.timeline ? std::to_string(m.peak_inflight()[static_cast<std::size_t>(d)]) : "")
        .cell(r.timeline ? std::to_string(m.peak_activation_bytes()[static_cast<std::size_t>(d)])
                         : "")
        .cell(m.device_weight_bytes(d))
        .cell(device_macs(spec, t, d))
        .cell(device_memory_bytes(spec, t, d))
        .num("%.6e", device_energy(t, d));
    if (dev.model)
      csv.cell("");
    else
      csv.num("%.6f",
              cycles > 0 ? macs / (static_cast<double>(dev.accelerator.pes()) * cycles) : 0);
    const double idle_pj = t.idle_energy_pj[static_cast<std::size_t>(d)];
    if (std::isnan(idle_pj))
      csv.cell("");  // an energy table not in pJ gives no watts
    else
      csv.num("%.6e", idle_pj);
  }
  return csv.text();
}

std::string links_csv(const SystemRunData& r) {
  const PipelineEpoch& t = r.totals;
  CsvTable csv({"channel", "bytes", "transfers", "busy_seconds", "busy_fraction", "energy_pj"});
  const auto& channels = r.model->net().channels();
  for (std::size_t c = 0; c < channels.size(); ++c) {
    const LinkTotals& s = t.channels[c];
    csv.row()
        .cell(channels[c].name)
        .cell(s.bytes)
        .cell(s.transfers)
        .num("%.9g", s.busy_s)
        .num("%.6f", t.time_s > 0 ? s.busy_s / t.time_s : 0)
        .num("%.6e", s.energy_pj);
  }
  return csv.text();
}

std::string system_epochs_csv(const SystemRunData& r) {
  const ExperimentSpec& spec = *r.spec;
  const bool real = !r.metrics.empty();
  // The common energy is the devices' (what compare and sweep compare, RunResult::energy);
  // the links' is an extra, always in pJ.
  // One `<kind>_batches` column per kind of batch the technique declares.
  std::vector<std::string> columns;
  for (const std::string& k : r.model->kind_names()) columns.push_back(k + "_batches");
  columns.push_back("idle_fraction");
  columns.push_back("link_energy_pj");
  EpochTable table(device_energy_unit(spec), columns);
  for (std::size_t e = 0; e < r.epochs.size(); ++e) {
    const PipelineEpoch& ep = r.epochs[e];
    EpochCells c;
    if (real) c = metrics_cells(r.metrics[e]);
    c.epoch = static_cast<std::int64_t>(e + 1);
    c.seconds = ep.time_s;
    if (ep.time_s > 0) c.samples_per_second = static_cast<double>(r.trained_samples) / ep.time_s;
    c.energy = 0;
    for (int d = 0; d < r.model->layout().devices; ++d) c.energy += device_energy(ep, d);
    auto& row = table.row(c);
    for (std::int64_t n : ep.batches) row.cell(n);
    row.num("%.6f", idle_fraction(ep)).num("%.6e", link_energy_pj(ep));
  }
  return table.text();
}

std::string system_stats_json(const SystemRunData& r) {
  const ExperimentSpec& spec = *r.spec;
  PipelineModel& m = *r.model;
  const PipelineEpoch& t = r.totals;
  nlohmann::ordered_json j = stats_header(RunKind::kSystem, spec.name);
  j["status"] = r.status;
  j["numerics"] = spec.numerics;
  j["network"] = spec.network.name;
  j["dataset"] = {
      {"name", spec.dataset.name}, {"train_samples", r.data.train}, {"test_samples", r.data.test}};
  j["technique"] = spec.sim.technique.label();
  j["batch_size"] = spec.training.batch_size;
  j["epochs"] = spec.training.epochs;
  j["system"] = {{"name", spec.system.name},
                 {"devices", m.layout().devices},
                 {"topology", spec.system.topology},
                 {"link",
                  {{"bandwidth_gbps", spec.system.link.bandwidth_gbps},
                   {"latency_ns", spec.system.link.latency_ns},
                   {"pj_per_bit", spec.system.link.pj_per_bit}}}};
  // How the run was timed: a schedule over shapes executed on the platform, or the ops the
  // numerics issued (a technique whose work depends on the data, on one device).
  j["timing"] = r.timeline != nullptr ? "schedule" : "numerics";
  j["pipeline"] = {
      {"schedule", spec.pipeline.schedule}, {"micro_batches", spec.pipeline.micro_batches},
      {"micro_batch_size", m.micro_size()}, {"replicas", spec.pipeline.replicas},
      {"stages", m.layout().stages},        {"pipes", m.layout().pipes()}};
  for (int s = 0; s < m.layout().stages; ++s)
    j["pipeline"]["stage_layers"].push_back({m.stage_first()[static_cast<std::size_t>(s)],
                                             m.stage_first()[static_cast<std::size_t>(s) + 1] - 1});
  const std::string unit = device_energy_unit(spec);
  double energy = 0;
  for (int d = 0; d < m.layout().devices; ++d) energy += device_energy(t, d);
  j["totals"] = {
      {"train_seconds", t.time_s},
      {"samples_per_second", t.time_s > 0 ? static_cast<double>(r.trained_samples) *
                                                static_cast<double>(r.epochs.size()) / t.time_s
                                          : 0},
      {"idle_fraction", idle_fraction(t)},
      {"device_energy", energy},
      {"device_energy_unit", unit},
      {"link_energy_pj", link_energy_pj(t)},
      {"link_bytes", [&] {
         std::int64_t b = 0;
         for (const auto& c : t.channels) b += c.bytes;
         return b;
       }()}};
  const std::vector<std::string>& kinds = m.kind_names();
  for (std::size_t k = 0; k < t.batches.size(); ++k)
    j["totals"]["batches"][kinds[k]] = t.batches[k];
  if (!r.metrics.empty()) j["totals"]["test_accuracy"] = r.metrics.back().test.accuracy;
  for (int d = 0; d < m.layout().devices; ++d) {
    const double busy = t.busy_s[static_cast<std::size_t>(d)];
    const DeviceSpec& dev = spec.system.devices[static_cast<std::size_t>(d)];
    // What the technique adds to an accelerator device (each has its own copy); a device of
    // another kind runs the technique's ops itself and adds nothing.
    std::int64_t extra_pes = 0, extra_bytes = 0;
    if (!dev.model) {
      const TechniqueHardware hw = technique_hardware(
          spec.sim.technique, m.shape(), static_cast<int>(dev.accelerator.word_bytes()));
      if (hw.own_array()) extra_pes = own_array_spec(hw, dev.accelerator).pes();
      extra_bytes = hw.storage_bytes;
    }
    j["devices"].push_back(
        {{"device", d},
         {"accelerator", dev.name()},
         {"kind", dev.model ? dev.model_kind : std::string("accelerator")},
         {"technique_pes", extra_pes},
         {"technique_storage_bytes", extra_bytes},
         {"busy_seconds", busy},
         {"idle_seconds", t.time_s - busy},
         {"peak_inflight_micro_batches",
          r.timeline ? nlohmann::ordered_json(m.peak_inflight()[static_cast<std::size_t>(d)])
                     : nlohmann::ordered_json()},
         {"peak_activation_bytes",
          r.timeline
              ? nlohmann::ordered_json(m.peak_activation_bytes()[static_cast<std::size_t>(d)])
              : nlohmann::ordered_json()},
         {"weight_bytes", m.device_weight_bytes(d)},
         {"macs", device_macs(spec, t, d)},
         {"dram_bytes", device_memory_bytes(spec, t, d)},
         {"energy", device_energy(t, d)},
         {"idle_energy_pj", t.idle_energy_pj[static_cast<std::size_t>(d)]}});
  }
  const auto& channels = m.net().channels();
  for (std::size_t c = 0; c < channels.size(); ++c)
    j["links"].push_back({{"channel", channels[c].name},
                          {"bytes", t.channels[c].bytes},
                          {"transfers", t.channels[c].transfers},
                          {"busy_seconds", t.channels[c].busy_s},
                          {"energy_pj", t.channels[c].energy_pj}});
  for (std::size_t e = 0; e < r.epochs.size(); ++e) {
    const PipelineEpoch& ep = r.epochs[e];
    nlohmann::ordered_json je;
    je["epoch"] = e + 1;
    for (std::size_t k = 0; k < ep.batches.size(); ++k) je["batches"][kinds[k]] = ep.batches[k];
    je["train_seconds"] = ep.time_s;
    je["idle_fraction"] = idle_fraction(ep);
    if (!r.metrics.empty()) je["test_accuracy"] = r.metrics[e].test.accuracy;
    j["per_epoch"].push_back(std::move(je));
  }
  return j.dump(2) + "\n";
}

namespace {

// A run timed from its ops: the device's two streams, one thread each.
std::string stream_trace_json(const SystemRunData& r) {
  const ExperimentSpec& spec = *r.spec;
  nlohmann::ordered_json events = nlohmann::ordered_json::array();
  const std::string device = "dev0 " + spec.system.devices[0].name();
  for (int u = 0; u < 2; ++u)
    events.push_back({{"name", "thread_name"},
                      {"ph", "M"},
                      {"pid", 0},
                      {"tid", u},
                      {"args", {{"name", device + (u ? " second unit" : " main")}}}});
  const auto& layers = spec.network.layers;
  for (const StreamTraceOp& op : r.stream_trace) {
    const auto role = static_cast<OpRole>(op.role);
    const bool named = op.layer >= 0 && static_cast<std::size_t>(op.layer) < layers.size();
    events.push_back(
        {{"name", (named ? layers[static_cast<std::size_t>(op.layer)].name : std::string("op")) +
                      " " + role_name(role)},
         {"cat", role_name(role)},
         {"ph", "X"},
         {"ts", op.start_s * 1e6},
         {"dur", (op.end_s - op.start_s) * 1e6},
         {"pid", 0},
         {"tid", op.stream},
         {"args", {{"layer", op.layer}, {"discarded", op.discarded}}}});
  }
  nlohmann::ordered_json j;
  j["traceEvents"] = events;
  j["displayTimeUnit"] = "ns";
  j["otherData"] = {{"experiment", spec.name},
                    {"technique", spec.sim.technique.label()},
                    {"what", "the first ops of the run, as its numerics issued them"}};
  return j.dump(1) + "\n";
}

}  // namespace

std::string chrome_trace_json(const SystemRunData& r) {
  if (r.timeline == nullptr) return stream_trace_json(r);
  // Chrome's trace event format: "X" (complete) events with microsecond timestamps, one
  // thread per device and per link direction, named by "M" metadata events.
  const BatchRun& run = *r.timeline;
  const TaskGraph& g = *run.graph;
  const ExperimentSpec& spec = *r.spec;
  nlohmann::ordered_json events = nlohmann::ordered_json::array();
  const int devices = g.layout().devices;
  for (int d = 0; d < devices; ++d)
    events.push_back({{"name", "thread_name"},
                      {"ph", "M"},
                      {"pid", 0},
                      {"tid", d},
                      {"args",
                       {{"name", "dev" + std::to_string(d) + " " +
                                     spec.system.devices[static_cast<std::size_t>(d)].name()}}}});
  const auto& channels = r.model->net().channels();
  for (std::size_t c = 0; c < channels.size(); ++c)
    events.push_back({{"name", "thread_name"},
                      {"ph", "M"},
                      {"pid", 0},
                      {"tid", devices + static_cast<int>(c)},
                      {"args", {{"name", channels[c].name}}}});
  for (std::size_t i = 0; i < g.size(); ++i) {
    const Task& t = g.task(static_cast<int>(i));
    const TaskTiming& tt = run.result.tasks[i];
    if (tt.end_ps == tt.start_ps && (t.pass == Pass::kGradDone || t.pass == Pass::kReduce))
      continue;
    const int kind = run.kinds[static_cast<std::size_t>(t.batch)];
    events.push_back({{"name", t.label()},
                      {"cat", pass_name(t.pass)},
                      {"ph", "X"},
                      {"ts", static_cast<double>(tt.start_ps) * 1e-6},
                      {"dur", static_cast<double>(tt.end_ps - tt.start_ps) * 1e-6},
                      {"pid", 0},
                      {"tid", t.device},
                      {"args",
                       {{"batch_kind", r.model->kind_names()[static_cast<std::size_t>(kind)]},
                        {"stage", t.stage},
                        {"micro_batch", t.micro}}}});
  }
  for (const TransferRecord& x : run.result.transfers)
    events.push_back({{"name", "to " + g.task(x.task).label()},
                      {"cat", "transfer"},
                      {"ph", "X"},
                      {"ts", static_cast<double>(x.start_ps) * 1e-6},
                      {"dur", static_cast<double>(x.end_ps - x.start_ps) * 1e-6},
                      {"pid", 0},
                      {"tid", devices + x.channel},
                      {"args", {{"bytes", x.bytes}}}});
  nlohmann::ordered_json j;
  j["traceEvents"] = events;
  j["displayTimeUnit"] = "ns";
  j["otherData"] = {
      {"experiment", spec.name},
      {"schedule", spec.pipeline.schedule},
      {"what", "the first batches of epoch 1 up to the first backprop batch, from an idle system"}};
  return j.dump(1) + "\n";
}

}  // namespace trainsim
