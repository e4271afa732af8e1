#pragma once
// Static device orders on the one engine (models/platform/executor.h): each device runs its
// own queue of tasks in order; a task waits until every input has arrived (the device's event
// is notified when a task's last input lands, never polled), takes its duration, and sends its
// outputs to the tasks that need them: directly on the same device, otherwise as a transfer
// that every channel along the route serialises at its bandwidth and delivers after its
// latency. Pipeline schedules, data-parallel replicas and trace replays run this way.
//
// The processes are spawned (sc_spawn) for each run and end with it, on the one kernel every
// device of the process shares (models/sc_kernel.h): any number of devices and links, and
// runs with different systems in one process (trainsim compare).
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "models/platform/interconnect.h"
#include "models/platform/links.h"
#include "models/platform/task_graph.h"

namespace trainsim {

struct TaskTiming {
  std::int64_t start_ps = 0, end_ps = 0;
};

struct PlatformResult {
  std::int64_t makespan_ps = 0;           ///< from the run's start to its last task's end
  std::vector<TaskTiming> tasks;          ///< per TaskGraph index, relative to the start
  std::vector<ChannelStats> channels;     ///< per Interconnect channel
  std::vector<std::int64_t> busy_ps;      ///< per device: sum of its tasks' durations
  std::vector<TransferRecord> transfers;  ///< every hop, in the order they were sent
  DeviceOrders orders;                    ///< what each device ran, in order (the given orders)
};

/// What runs: the graph (its edges' bytes set, TaskGraph::set_edge_bytes), each device's
/// order and each task's duration.
struct PlatformWork {
  const TaskGraph* graph = nullptr;
  const DeviceOrders* orders = nullptr;
  /// Each task's duration, by TaskGraph index, computed before the run: an accelerator
  /// stage's costs come from its own SystemC node (models/accel_node.h), which runs the
  /// kernel itself and so cannot run inside the platform's processes.
  std::vector<std::int64_t> duration_ps;
};

/// Executes `work` on devices joined by `net`; returns when every task has finished.
PlatformResult run_platform(const Interconnect& net, const PlatformWork& work);

}  // namespace trainsim
