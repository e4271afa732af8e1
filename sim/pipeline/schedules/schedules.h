#pragma once
// The registered pipeline schedules, one per file; schedule_registry.cpp lists them.
#include <functional>
#include <vector>

#include "sim/pipeline/schedule.h"

namespace trainsim {

const Schedule& gpipe_schedule();
const Schedule& one_f_one_b_schedule();
const Schedule& interleaved_schedule();
const Schedule& zero_bubble_h1_schedule();
const Schedule& chimera_schedule();
const Schedule& custom_schedule();

/// Appends, for batch `b`, the device's update tasks (and gradient markers) of every stage it
/// holds, after its other tasks of the batch: the order static schedules use.
void append_updates(const TaskGraph& g, int b, int device, std::vector<int>& order);

/// Appends a device's tasks of one batch to its order.
using BatchOrder = std::function<void(int batch, int device, std::vector<int>& order)>;
/// A static schedule's orders, batch after batch on every device: a backprop batch as
/// `backprop` appends it, a forward-only batch as `forward_only` does (default: the device's
/// forwards in micro-batch order), each batch followed by its updates.
DeviceOrders batch_by_batch(const TaskGraph& g, const BatchOrder& backprop,
                            const BatchOrder& forward_only = nullptr);

}  // namespace trainsim
