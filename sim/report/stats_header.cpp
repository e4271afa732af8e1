#include "sim/report/stats_header.h"

namespace trainsim {

const char* run_kind_name(RunKind kind) {
  switch (kind) {
    case RunKind::kTrain:
      return "train";
    case RunKind::kRun:
      return "run";
    case RunKind::kShapeOnly:
      return "shape-only";
    case RunKind::kSystem:
      return "system";
    case RunKind::kHype:
      return "hype";
    case RunKind::kReplay:
      return "replay";
  }
  return "run";  // unreachable: every enumerator is named above
}

nlohmann::ordered_json stats_header(RunKind kind, const std::string& experiment) {
  nlohmann::ordered_json j;
  j["kind"] = run_kind_name(kind);
  j["schema_version"] = kStatsSchemaVersion;
  j["trainsim_version"] = TRAINSIM_VERSION;
  j["experiment"] = experiment;
  return j;
}

}  // namespace trainsim
