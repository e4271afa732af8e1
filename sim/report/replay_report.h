#pragma once
// What `trainsim replay` writes: stats.json (the replay's totals and per-device figures,
// under the stats header every results directory has) and devices.csv (one row a device).
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/pipeline/trace_replay.h"

namespace trainsim {

/// What the replay ran: the traces' prefix, the system and the devices' names and kinds.
struct ReplayContext {
  std::string prefix;
  std::string system, system_source, topology;
  ReplayTiming timing = ReplayTiming::kDevice;
  std::vector<std::string> device_names, device_kinds;
};

nlohmann::ordered_json replay_stats_json(const ReplayContext& c, const ReplayResult& r);
std::string replay_devices_csv(const ReplayContext& c, const ReplayResult& r);

}  // namespace trainsim
