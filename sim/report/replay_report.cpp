#include "sim/report/replay_report.h"

#include "sim/core/csv.h"
#include "sim/core/format.h"
#include "sim/report/stats_header.h"

namespace trainsim {

namespace {

double seconds(std::int64_t ps) {
  return static_cast<double>(ps) * 1e-12;
}

// A device whose nodes all took recorded durations has no priced energy: null, not zero.
nlohmann::ordered_json priced_j(const ReplayDeviceStats& s, double j) {
  if (s.priced_nodes == 0 && s.comp_nodes + s.mem_nodes > 0) return nullptr;
  return j;
}

}  // namespace

nlohmann::ordered_json replay_stats_json(const ReplayContext& c, const ReplayResult& r) {
  nlohmann::ordered_json j = stats_header(RunKind::kReplay, c.prefix);
  j["system"] = {{"name", c.system}, {"source", c.system_source}, {"topology", c.topology}};
  j["timing"] = replay_timing_name(c.timing);
  double compute = 0, memory = 0, idle = 0;
  std::int64_t priced = 0;
  for (const ReplayDeviceStats& d : r.devices)
    compute += d.compute_j, memory += d.memory_j, idle += d.idle_j, priced += d.priced_nodes;
  j["totals"] = {{"makespan_ps", r.makespan_ps},
                 {"makespan_seconds", seconds(r.makespan_ps)},
                 {"nodes", r.nodes},
                 {"dependencies", r.dependencies},
                 {"transfers", r.transfers},
                 {"priced_nodes", priced},
                 {"compute_energy_j", priced > 0 ? nlohmann::ordered_json(compute) : nullptr},
                 {"memory_energy_j", priced > 0 ? nlohmann::ordered_json(memory) : nullptr},
                 {"idle_energy_j", idle},
                 {"comm_energy_j", r.link_j}};
  nlohmann::ordered_json devices = nlohmann::ordered_json::array();
  for (std::size_t d = 0; d < r.devices.size(); ++d) {
    const ReplayDeviceStats& s = r.devices[d];
    devices.push_back({{"device", d},
                       {"name", c.device_names[d]},
                       {"kind", c.device_kinds[d]},
                       {"trace", s.file},
                       {"comp_nodes", s.comp_nodes},
                       {"mem_nodes", s.mem_nodes},
                       {"sends", s.sends},
                       {"recvs", s.recvs},
                       {"other_nodes", s.other_nodes},
                       {"priced_nodes", s.priced_nodes},
                       {"busy_ps", s.busy_ps},
                       {"compute_ps", s.compute_ps},
                       {"memory_ps", s.memory_ps},
                       {"idle_ps", r.makespan_ps - s.busy_ps},
                       {"sent_bytes", s.sent_bytes},
                       {"compute_energy_j", priced_j(s, s.compute_j)},
                       {"memory_energy_j", priced_j(s, s.memory_j)},
                       {"idle_energy_j", s.idle_j},
                       {"comm_energy_j", s.comm_j}});
  }
  j["devices"] = devices;
  return j;
}

std::string replay_devices_csv(const ReplayContext& c, const ReplayResult& r) {
  CsvTable csv({"device", "name", "kind", "comp_nodes", "mem_nodes", "sends", "recvs",
                "busy_seconds", "compute_seconds", "memory_seconds", "idle_seconds", "sent_bytes",
                "compute_energy_j", "memory_energy_j", "idle_energy_j", "comm_energy_j"});
  for (std::size_t d = 0; d < r.devices.size(); ++d) {
    const ReplayDeviceStats& s = r.devices[d];
    csv.row()
        .cell(static_cast<std::int64_t>(d))
        .cell(c.device_names[d])
        .cell(c.device_kinds[d])
        .cell(s.comp_nodes)
        .cell(s.mem_nodes)
        .cell(s.sends)
        .cell(s.recvs)
        .num("%.9g", seconds(s.busy_ps))
        .num("%.9g", seconds(s.compute_ps))
        .num("%.9g", seconds(s.memory_ps))
        .num("%.9g", seconds(r.makespan_ps - s.busy_ps))
        .cell(s.sent_bytes)
        .cell(s.priced_nodes > 0 ? fmt("%.9g", s.compute_j) : "")  // none priced: empty
        .cell(s.priced_nodes > 0 ? fmt("%.9g", s.memory_j) : "")
        .num("%.9g", s.idle_j)
        .num("%.9g", s.comm_j);
  }
  return csv.text();
}

}  // namespace trainsim
