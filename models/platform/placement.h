#pragma once
// A placement decides which device runs each task of one iteration's task graph
// (models/platform/task_graph.h) and in which order. Every multi-device run is one: pipeline
// schedules, data-parallel replicas, given orders and trace replays decide ahead of the run
// (models/platform/platform.h: per-device orders, executed as listed), Hype-training's policies
// as it goes (sim/hype/runtime.cpp: an op goes to an idle device when it is ready, reading the
// system's live state). Either way a placement is the dispatcher the one executor
// (models/platform/executor.h) runs, and execute() is the one way to run it: it returns what
// ran where as data, per-device orders over the same task graph, whichever family decided
// them. An online placement's decisions can so be read and compared as orders, and replayed
// as orders where nothing but the order decides (tests/unit/test_placement.cpp: Hype's GPU
// alone). With offload devices they are not the whole decision: a big op runs on a gang of
// offload devices (listed on its first), and the runtime moves data through the host by rules
// of its own.
//
// The families and their members are listed by `trainsim list placements`
// (sim/run/placements.h); a new member is a file of its family plus one registry line there
// (pipeline schedules: sim/pipeline/schedule_registry.cpp; Hype policies:
// sim/hype/policy_registry.cpp).
#include <cstdint>
#include <vector>

#include "models/platform/executor.h"
#include "models/platform/interconnect.h"
#include "models/platform/links.h"
#include "models/platform/task_graph.h"

namespace trainsim {

/// When a placement decides: before the run (orders) or during it (a runtime policy).
enum class PlacementTiming : std::uint8_t { kAhead, kOnline };
const char* placement_timing_name(PlacementTiming t);  ///< "ahead", "online"

class Placement : public Dispatcher {
 public:
  virtual PlacementTiming timing() const = 0;
};

/// What a placement made of an iteration: every task a device ran with its times, and per
/// device the tasks in the order it ran them (DeviceOrders over the placement's task graph;
/// work beside compute, such as an all-reduce step, is in none), and what the links carried.
struct Realized {
  PlacementTiming timing = PlacementTiming::kAhead;  ///< the family that decided it
  std::vector<TaskRun> runs;                         ///< in the order they ended
  DeviceOrders orders;
  std::vector<ChannelStats> channels;     ///< per Interconnect channel
  std::vector<TransferRecord> transfers;  ///< every hop, in the order they were sent
};

/// Runs `p` on the devices and links of `net` (the one executor) until it is done; rethrows
/// any error of the run, or the placement's account of a run that cannot finish.
Realized execute(Placement& p, const Interconnect& net);

}  // namespace trainsim
