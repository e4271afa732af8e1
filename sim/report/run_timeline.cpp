#include "sim/report/run_timeline.h"

#include <nlohmann/json.hpp>

namespace trainsim {

namespace {

const char* const kPhaseNames[kNumPhases] = {"train", "eval"};

}  // namespace

std::string run_timeline_json(const AcceleratorSession& session) {
  const AcceleratorSpec& acc = session.accelerator();
  const bool own = session.own_unit();
  // Tracks: 0 main array, 1 main vector unit, then the technique's array and vector unit.
  // A second unit without an array of its own runs on the main units' tracks.
  std::vector<std::string> tracks = {acc.name + " PE array", acc.name + " vector unit"};
  if (own) {
    const std::string unit = own_array_spec(session.hardware(), acc).name;
    tracks.push_back(unit + " PE array");
    tracks.push_back(unit + " vector unit");
  }
  nlohmann::ordered_json events = nlohmann::ordered_json::array();
  for (std::size_t t = 0; t < tracks.size(); ++t)
    events.push_back({{"name", "thread_name"},
                      {"ph", "M"},
                      {"pid", 0},
                      {"tid", t},
                      {"args", {{"name", tracks[t]}}}});
  const NetShape& net = session.shape();
  for (const TraceOp& op : session.trace()) {
    const int track = (own && op.unit == 1 ? 2 : 0) + (op.array ? 0 : 1);
    const OpRole role = static_cast<OpRole>(op.role);
    const std::string layer = op.layer >= 0 && static_cast<std::size_t>(op.layer) < net.size()
                                  ? net.layer_spec(static_cast<std::size_t>(op.layer)).name
                                  : std::to_string(op.layer);
    events.push_back({{"name", layer + " " + role_name(role)},
                      {"cat", role_name(role)},
                      {"ph", "X"},
                      {"ts", static_cast<double>(op.start_ps) * 1e-6},  // microseconds
                      {"dur", static_cast<double>(op.end_ps - op.start_ps) * 1e-6},
                      {"pid", 0},
                      {"tid", track},
                      {"args",
                       {{"layer", op.layer},
                        {"phase", kPhaseNames[op.phase < kNumPhases ? op.phase : 0]},
                        {"macs", op.macs},
                        {"dram_bytes", op.dram_bytes}}}});
  }
  nlohmann::ordered_json j;
  j["traceEvents"] = events;
  j["displayTimeUnit"] = "ns";
  return j.dump(1) + "\n";
}

}  // namespace trainsim
