#include "sim/run/placements.h"

#include "sim/hype/policy.h"
#include "sim/pipeline/schedule.h"

namespace trainsim {

namespace {

std::vector<PlacementMember> schedule_members() {
  std::vector<PlacementMember> out;
  for (const Schedule* s : schedules()) out.push_back({s->name(), s->description()});
  return out;
}

std::vector<PlacementMember> policy_members() {
  std::vector<PlacementMember> out;
  for (const PolicyInfo& p : hype_policies()) out.push_back({p.name, p.description});
  return out;
}

}  // namespace

const std::vector<PlacementFamily>& placement_families() {
  static const std::vector<PlacementFamily> all = {
      {"schedule", PlacementTiming::kAhead, "pipeline.schedule", "system",
       "(stages over devices, each device's tasks in an order fixed in advance)", schedule_members},
      {"policy", PlacementTiming::kOnline, "hype.policy", "hype",
       "(each op on a GPU or offload devices when it is ready, by the system's state)",
       policy_members},
  };
  return all;
}

}  // namespace trainsim
