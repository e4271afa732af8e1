#include "sim/report/hype_report.h"

#include <map>
#include <nlohmann/json.hpp>
#include <utility>

#include "sim/core/csv.h"
#include "sim/hype/hype_spec.h"
#include "sim/report/epoch_table.h"
#include "sim/report/stats_header.h"

namespace trainsim {

namespace {

std::size_t at(int i) {
  return static_cast<std::size_t>(i);
}

const char* place_name(OpSite p) {
  return p == OpSite::kGpu ? "gpu" : "offload";
}

std::string layer_name(const HypeRunData& r, int layer) {
  if (layer < 0 || at(layer) >= r.net->size()) return "";
  return r.net->layer_spec(at(layer)).name;
}

nlohmann::ordered_json outcome_json(const HypeOutcome& o, int batch) {
  nlohmann::ordered_json j;
  j["iteration_s"] = o.iteration_s;
  j["samples_per_s"] = o.iteration_s > 0 ? batch / o.iteration_s : 0;
  j["energy_j"] = o.energy_j;
  j["energy_per_sample_j"] = o.energy_j / batch;
  j["avg_w"] = o.avg_w();
  j["peak_w"] = o.peak_w;
  // Throughput per watt is samples per joule.
  j["samples_per_j"] = o.energy_j > 0 ? batch / o.energy_j : 0;
  j["violations"] = o.violations;
  j["above_cap_s"] = o.above_cap_s;
  j["offloaded_ops"] = o.run.offloaded;
  j["demoted_ops"] = o.run.demoted;
  j["overlap_blocked_ops"] = o.run.overlap_blocked;
  // Time devices held an op while its inputs were on their way, summed over devices (a gang
  // op's wait counts once per device). The GPU never waits: it starts an op once its inputs
  // are there. exposed_transfer_s is the data movement left on the critical path.
  double wait = 0;
  for (const DeviceUse& d : o.run.devices) wait += d.wait_s;
  j["device_wait_s"] = wait;
  j["link_energy_j"] = o.run.link_energy_j;
  // The GPU's clock over its busy time, as a fraction of the full clock (DVFS; else 1).
  j["gpu_mean_clock"] = o.run.mean_clock;
  return j;
}

nlohmann::ordered_json link_json(const HostLink& l) {
  return {{"bandwidth_gbps", l.bandwidth_gbps},
          {"latency_us", l.latency_s * 1e6},
          {"pj_per_bit", l.pj_per_bit}};
}

}  // namespace

HypeEpoch hype_epoch(const HypeIteration& it, std::int64_t full, const HypeIteration* rest) {
  HypeEpoch e;
  const double n = static_cast<double>(full);
  e.seconds = n * it.policy.iteration_s;
  e.energy_j = n * it.policy.energy_j;
  e.violations = n * it.policy.violations;
  e.gpu_only_seconds = n * it.gpu_only.iteration_s;
  e.gpu_only_energy_j = n * it.gpu_only.energy_j;
  e.gpu_only_violations = n * it.gpu_only.violations;
  if (rest) {
    e.seconds += rest->policy.iteration_s;
    e.energy_j += rest->policy.energy_j;
    e.violations += rest->policy.violations;
    e.gpu_only_seconds += rest->gpu_only.iteration_s;
    e.gpu_only_energy_j += rest->gpu_only.energy_j;
    e.gpu_only_violations += rest->gpu_only.violations;
  }
  return e;
}

std::string hype_stats_json(const HypeRunData& r) {
  const HypeSpec& h = *r.spec->hype;
  const HypeIteration& it = *r.it;
  nlohmann::ordered_json j = stats_header(RunKind::kHype, r.spec->name);
  j["network"] = r.spec->network.name;
  j["dataset"] = r.spec->dataset.name;
  j["policy"] = h.policy;
  nlohmann::ordered_json sys;
  sys["gpu"] = h.gpu->name;
  sys["gpus"] = h.gpus;
  sys["offload"] = h.offload ? h.offload->name : "";
  sys["offloads"] = h.offloads;
  sys["gpu_link"] = link_json(h.gpu_link);
  sys["offload_link"] = link_json(h.offload_link);
  sys["host_static_w"] = h.host_static_w;
  sys["overlap_rule"] = overlap_rule_name(h.overlap_rule);
  sys["bias_ops"] = h.bias_ops;
  sys["static_w"] = h.static_w();
  sys["power_cap_w"] = std::isfinite(h.power_cap_w) ? nlohmann::ordered_json(h.power_cap_w)
                                                    : nlohmann::ordered_json(nullptr);
  j["system"] = sys;
  j["batch"] = it.batch;
  j["batch_per_gpu"] = it.batch_per_gpu;
  j["ops_per_iteration"] = it.dag.size();
  nlohmann::ordered_json th;
  th["auto"] = h.auto_thresholds;
  th["bandwidth_gbps"] = it.character.thresholds.bandwidth_gbps;
  th["ipc"] = it.character.thresholds.ipc;
  th["combine"] = threshold_combine_name(it.character.thresholds.combine);
  j["thresholds"] = th;
  int candidates = 0, fast = 0, slack = 0, planned = 0;
  for (std::size_t i = 0; i < it.character.ops.size(); ++i) {
    const OpCharacter& o = it.character.ops[i];
    candidates += o.candidate;
    fast += o.fast;
    slack += o.slack_eligible;
    planned += it.plan.size() > i && it.plan[i] == OpSite::kOffload;
  }
  j["characterization"] = {{"candidates", candidates},
                           {"fast", fast},
                           {"slack_eligible", slack},
                           {"planned_offload", planned},
                           {"guard_demotions", it.guard_demotions}};
  j["exposed_transfer_s"] = it.exposed_transfer_s;
  j["allreduce_s"] = it.allreduce_s;
  j["allreduce_bytes"] = it.allreduce_bytes;
  j["iteration"] = {{"policy", outcome_json(it.policy, it.batch)},
                    {"gpu_only", outcome_json(it.gpu_only, it.batch)}};
  // The paper's figures of merit (Sec. 5.2): throughput, energy efficiency (throughput per
  // watt), average power, each against gpu-only; and the energy reduction (the same samples
  // for less energy), which is how the paper's abstract states its 44.3% (docs/hype.md).
  const double speed = it.gpu_only.iteration_s / it.policy.iteration_s;
  const double efficiency = it.gpu_only.energy_j / it.policy.energy_j;
  j["gains"] = {{"throughput", speed - 1},
                {"energy_efficiency", efficiency - 1},
                {"energy_reduction", 1 - it.policy.energy_j / it.gpu_only.energy_j},
                {"power_saving", 1 - it.policy.avg_w() / it.gpu_only.avg_w()}};
  nlohmann::ordered_json epochs = nlohmann::ordered_json::array();
  for (const HypeEpoch& e : r.epochs) {
    nlohmann::ordered_json je;
    je["seconds"] = e.seconds;
    je["energy_j"] = e.energy_j;
    je["violations"] = e.violations;
    je["gpu_only_seconds"] = e.gpu_only_seconds;
    je["gpu_only_energy_j"] = e.gpu_only_energy_j;
    je["test_accuracy"] =
        e.has_accuracy ? nlohmann::ordered_json(e.test_accuracy) : nlohmann::ordered_json(nullptr);
    epochs.push_back(std::move(je));
  }
  j["epochs"] = std::move(epochs);
  return j.dump(2) + "\n";
}

std::string hype_epochs_csv(const HypeRunData& r) {
  EpochTable t(
      "J", {"avg_w", "violations", "gpu_only_seconds", "gpu_only_energy_j", "gpu_only_violations"});
  for (std::size_t i = 0; i < r.epochs.size(); ++i) {
    const HypeEpoch& e = r.epochs[i];
    EpochCells c;
    c.epoch = static_cast<std::int64_t>(i + 1);
    if (e.has_accuracy) {
      c.test_accuracy = e.test_accuracy;
      c.test_loss = e.test_loss;
    }
    c.seconds = e.seconds;
    if (e.seconds > 0) c.samples_per_second = static_cast<double>(r.train_samples) / e.seconds;
    c.energy = e.energy_j;
    t.row(c)
        .num("%.6g", e.energy_j / e.seconds)
        .num("%.0f", e.violations)
        .num("%.9g", e.gpu_only_seconds)
        .num("%.9g", e.gpu_only_energy_j)
        .num("%.0f", e.gpu_only_violations);
  }
  return t.text();
}

std::string hype_ops_csv(const HypeRunData& r) {
  const HypeIteration& it = *r.it;
  CsvTable t({"op",        "layer",           "layer_name",     "type",           "role",
              "gpu_s",     "gpu_avg_w",       "gpu_peak_w",     "gpu_gbps",       "gpu_ipc",
              "offload_s", "offload_devices", "offload_avg_w",  "offload_peak_w", "candidate",
              "fast",      "slack_s",         "slack_eligible", "planned",        "ran_on",
              "demoted",   "overlap_blocked", "guard_demoted",  "clock",          "start_s",
              "end_s"});
  for (int i = 0; i < it.dag.size(); ++i) {
    const DagNode& n = it.dag.node(i);
    const OpCharacter& c = it.character.ops[at(i)];
    const OpRun& o = it.policy.run.ops[at(i)];
    t.row()
        .cell(i)
        .cell(n.op.layer)
        .cell(layer_name(r, n.op.layer))
        .cell(paper_op_type_name(n.type))
        .cell(role_name(n.op.role))
        .num("%.6g", c.gpu.time_s)
        .num("%.6g", c.gpu.avg_w)
        .num("%.6g", c.gpu.peak_w)
        .num("%.6g", c.gpu.bandwidth_gbps)
        .num("%.6g", c.gpu.ipc)
        .num("%.6g", c.offload.time_s)
        .cell(c.offload_devices)
        .num("%.6g", c.offload.avg_w)
        .num("%.6g", c.offload.peak_w)
        .cell(c.candidate ? "yes" : "no")
        .cell(c.fast ? "yes" : "no")
        .num("%.6g", c.slack_s)
        .cell(c.slack_eligible ? "yes" : "no")
        .cell(place_name(it.plan[at(i)]))
        .cell(o.place == OpSite::kGpu
                  ? "gpu"
                  : "offload" + std::to_string(o.first_device - 1) +
                        (o.devices > 1 ? "+" + std::to_string(o.devices - 1) : ""))
        .cell(o.demoted ? "yes" : "no")
        .cell(o.overlap_blocked ? "yes" : "no")
        // Moved back by the never-slower guard before the run (HypeIteration::run_plan).
        .cell(it.plan[at(i)] == OpSite::kOffload && it.run_plan.size() > at(i) &&
                      it.run_plan[at(i)] == OpSite::kGpu
                  ? "yes"
                  : "no")
        .num("%.6g", o.clock)
        .num("%.9g", o.start_s)
        .num("%.9g", o.end_s);
  }
  return t.text();
}

std::string hype_placement_csv(const HypeRunData& r) {
  const HypeIteration& it = *r.it;
  struct Row {
    int ops = 0, offloaded = 0;
    double gpu_s = 0, offloaded_gpu_s = 0;
  };
  std::map<std::string, Row> rows;
  Row all;
  for (int i = 0; i < it.dag.size(); ++i) {
    Row& row = rows[paper_op_type_name(it.dag.node(i).type)];
    const double g = it.character.ops[at(i)].gpu.time_s;
    const bool off = it.policy.run.ops[at(i)].place == OpSite::kOffload;
    for (Row* x : {&row, &all}) {
      ++x->ops;
      x->gpu_s += g;
      if (off) {
        ++x->offloaded;
        x->offloaded_gpu_s += g;
      }
    }
  }
  // Shares as Table 2 gives them: of the ops, and of the time they take on the GPU alone.
  CsvTable t({"type", "ops", "offloaded", "ops_offloaded_pct", "gpu_s", "offloaded_gpu_s",
              "time_offloaded_pct"});
  auto add = [&](const std::string& name, const Row& x) {
    t.row()
        .cell(name)
        .cell(x.ops)
        .cell(x.offloaded)
        .num("%.2f", 100.0 * x.offloaded / x.ops)
        .num("%.6g", x.gpu_s)
        .num("%.6g", x.offloaded_gpu_s)
        .num("%.2f", x.gpu_s > 0 ? 100.0 * x.offloaded_gpu_s / x.gpu_s : 0);
  };
  for (const auto& [name, x] : rows) add(name, x);
  add("all", all);
  return t.text();
}

std::string hype_devices_csv(const HypeRunData& r) {
  const HypeIteration& it = *r.it;
  const HypeSpec& h = *r.spec->hype;
  CsvTable t({"device", "model", "ops", "busy_s", "wait_s", "idle_s", "utilization", "energy_j",
              "avg_w", "peak_w"});
  const double span = it.policy.run.makespan_s;
  for (std::size_t d = 0; d < it.policy.run.devices.size(); ++d) {
    const DeviceUse& u = it.policy.run.devices[d];
    t.row()
        .cell(u.name)
        .cell(d == 0 ? h.gpu->name : h.offload->name)
        .cell(u.ops)
        .num("%.9g", u.busy_s)
        .num("%.9g", u.wait_s)
        .num("%.9g", span - u.busy_s - u.wait_s)
        .num("%.4f", span > 0 ? u.busy_s / span : 0)
        .num("%.9g", u.energy_j)
        .num("%.6g", span > 0 ? u.energy_j / span : 0)
        .num("%.6g", u.peak_w);
  }
  return t.text();
}

std::string hype_links_csv(const HypeRunData& r) {
  CsvTable t({"link", "transfers", "bytes", "busy_s", "energy_j"});
  for (const LinkUse& l : r.it->policy.run.links)
    t.row()
        .cell(l.name)
        .cell(l.transfers)
        .num("%.0f", l.bytes)
        .num("%.9g", l.busy_s)
        .num("%.9g", l.energy_j);
  return t.text();
}

std::string hype_power_csv(const HypeRunData& r) {
  const HypeSpec& h = *r.spec->hype;
  CsvTable t({"run", "t_s", "avg_w", "peak_w"});
  // The system's draw: every replica alike, plus the host.
  auto add = [&](const char* name, const HypeOutcome& o) {
    for (const PowerStep& p : o.run.power)
      t.row()
          .cell(name)
          .num("%.9g", p.t_s)
          .num("%.6g", h.gpus * p.avg_w + h.host_static_w)
          .num("%.6g", h.gpus * p.peak_w + h.host_static_w);
    // The last step's end, so that a plot draws its width.
    const PowerStep& last = o.run.power.back();
    t.row()
        .cell(name)
        .num("%.9g", o.run.makespan_s)
        .num("%.6g", h.gpus * last.avg_w + h.host_static_w)
        .num("%.6g", h.gpus * last.peak_w + h.host_static_w);
  };
  add("policy", r.it->policy);
  add("gpu-only", r.it->gpu_only);
  return t.text();
}

std::string hype_timeline_json(const HypeRunData& r) {
  // Chrome's trace event format, as timeline.json of a pipeline run: "X" events in
  // microseconds, a thread per device and per link direction.
  const HypeIteration& it = *r.it;
  const RuntimeResult& run = it.policy.run;
  nlohmann::ordered_json events = nlohmann::ordered_json::array();
  const int devices = static_cast<int>(run.devices.size());
  for (int d = 0; d < devices; ++d)
    events.push_back({{"name", "thread_name"},
                      {"ph", "M"},
                      {"pid", 0},
                      {"tid", d},
                      {"args", {{"name", run.devices[at(d)].name}}}});
  for (std::size_t l = 0; l < run.links.size(); ++l)
    events.push_back({{"name", "thread_name"},
                      {"ph", "M"},
                      {"pid", 0},
                      {"tid", devices + static_cast<int>(l)},
                      {"args", {{"name", run.links[l].name}}}});
  for (int i = 0; i < it.dag.size(); ++i) {
    const OpRun& o = run.ops[at(i)];
    const DagNode& n = it.dag.node(i);
    for (int d = o.first_device; d < o.first_device + o.devices; ++d)
      events.push_back(
          {{"name", std::string(paper_op_type_name(n.type)) + " " + layer_name(r, n.op.layer)},
           {"cat", role_name(n.op.role)},
           {"ph", "X"},
           {"ts", o.start_s * 1e6},
           {"dur", (o.end_s - o.start_s) * 1e6},
           {"pid", 0},
           {"tid", d},
           {"args", {{"op", i}, {"demoted", o.demoted}}}});
  }
  for (const TransferRun& x : run.transfers)
    events.push_back({{"name", "op " + std::to_string(x.op)},
                      {"cat", "transfer"},
                      {"ph", "X"},
                      {"ts", x.start_s * 1e6},
                      {"dur", (x.end_s - x.start_s) * 1e6},
                      {"pid", 0},
                      {"tid", devices + x.link},
                      {"args", {{"bytes", x.bytes}}}});
  nlohmann::ordered_json j;
  j["traceEvents"] = events;
  j["displayTimeUnit"] = "ns";
  j["otherData"] = {{"experiment", r.spec->name},
                    {"policy", r.spec->hype->policy},
                    {"what", "one training iteration of one GPU's replica"}};
  return j.dump(1) + "\n";
}

}  // namespace trainsim
