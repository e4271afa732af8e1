#pragma once
// A pipeline schedule: how the stages of a model are laid out over the devices and in which
// order each device runs its tasks. Each schedule is one file in sim/pipeline/schedules/
// and a line in schedule_registry.cpp; `trainsim list schedules` lists them. A schedule
// only orders work: when each task starts follows from the order, the task costs and the
// links, and is found by executing the order on the platform (models/platform/).
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "models/platform/task_graph.h"
#include "sim/spec/system_spec.h"

namespace trainsim {

struct ScheduleParams {
  int devices = 1;
  int micro_batches = 1;
  int chunks = 1;  ///< model chunks per device (interleaved 1F1B's v); others need 1
  /// The `custom` schedule's data: per device, one batch's tasks in the order it runs them
  /// (`F3`: micro-batch 3's forward, `B3` its backward, or with `W` tasks its input gradient,
  /// `W3` its weight gradient); empty for every other schedule.
  std::vector<std::vector<std::string>> orders;
};

/// Estimated durations the planner orders by, in picoseconds: a task's, and an edge's (the
/// transfer when producer and consumer are on different devices, without contention).
struct PlanCosts {
  std::function<std::int64_t(const Task&)> task_ps;
  std::function<std::int64_t(const Task& from, const Task& to, EdgeData data)> edge_ps;
};

class Schedule {
 public:
  virtual ~Schedule() = default;
  virtual std::string name() const = 0;
  virtual std::string description() const = 0;
  /// Whether the schedule is data: its orders come from `pipeline.orders`
  /// (ScheduleParams::orders), which no other schedule takes.
  virtual bool takes_orders() const { return false; }
  /// Splits backward into backward-data (B) and backward-weight (W) tasks.
  virtual bool split_backward(const ScheduleParams&) const { return false; }
  /// Stages, placement and micro-batch pipes for `p`; UserError if the schedule cannot run
  /// that configuration (e.g. Chimera on an odd number of devices).
  virtual PipelineLayout layout(const ScheduleParams& p) const = 0;
  /// The order of every device's tasks (`p` as layout() had it).
  virtual DeviceOrders order(const TaskGraph& g, const PlanCosts& c,
                             const ScheduleParams& p) const = 0;
};

/// Every registered schedule, in a fixed order.
const std::vector<const Schedule*>& schedules();
/// The schedule called `name`, or UserError naming the known ones.
const Schedule& schedule_named(const std::string& name);

/// What a schedule lays out and orders for `p` on a system of `devices`: one replica's devices
/// (devices / p.replicas) and micro-batches, its chunks and given orders.
ScheduleParams schedule_params(const PipelineSpec& p, int devices);

/// The layout every non-interleaved schedule uses: stage s on device s, one pipe.
PipelineLayout straight_layout(const ScheduleParams& p);

}  // namespace trainsim
