#pragma once
// Data parallelism over a pipeline (`pipeline.replicas`): the schedule's layout repeated on
// consecutive groups of devices, replica r on devices [r D/R, (r+1) D/R). Each replica runs
// the schedule's order on its own share of the batch's micro-batches; the replicas of every
// stage (the schedule's own pipes, such as Chimera's two, times the replicas) all-reduce its
// gradients over a ring before the update (models/platform/task_graph.h). The schedules need
// not know: their orders for one replica are mapped onto every replica.
#include "models/platform/task_graph.h"

namespace trainsim {

/// `base` (one replica's layout, `base.devices` devices) repeated `replicas` times: devices,
/// pipes and micro-batches multiplied, replica r's pipes and micro-batches after replica
/// r-1's.
PipelineLayout replicate_layout(const PipelineLayout& base, int replicas);

/// The orders of `g` (built on replicate_layout(base.layout(), replicas) with the same
/// batches) from `orders`, one replica's orders of `base`: each replica runs its copy of every
/// task in the same order; a gradient marker `base` lacks (one replica has no all-reduce) runs
/// right after the last task whose gradients it waits for.
DeviceOrders replicate_orders(const TaskGraph& base, const DeviceOrders& orders, const TaskGraph& g,
                              int replicas);

}  // namespace trainsim
