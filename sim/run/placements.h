#pragma once
// Every placement trainsim has, by family (models/platform/placement.h): how a run's work goes
// to its devices. One registry over the families, each family one registry of its own members:
// a new member is a file of its family and a line in the family's registry, a new family a
// line here. `trainsim list placements` prints it.
#include <string>
#include <vector>

#include "models/platform/placement.h"

namespace trainsim {

struct PlacementMember {
  std::string name;
  std::string description;
};

struct PlacementFamily {
  const char* name;         ///< "schedule", "policy"
  PlacementTiming timing;   ///< when its members decide
  const char* key;          ///< the experiment key that names a member
  const char* run_kind;     ///< the kind of run that carries it out (sim/run/run_kinds.h)
  std::string description;  ///< what the family places and over what
  std::vector<PlacementMember> (*members)();
};

/// Every family, in a fixed order.
const std::vector<PlacementFamily>& placement_families();

}  // namespace trainsim
