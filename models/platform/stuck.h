#pragma once
// What a set of devices that can make no progress is waiting for, in one line: each stuck
// device, the task it holds and, for every input that task still lacks, whether the producer
// has not run (and where that producer's device is stuck, or that no device runs it) or ran
// and its transfer never arrived. A run that cannot finish says this instead of hanging or
// reporting a bare "deadlock" (users of other multi-device simulators report pipelines that
// wait forever with no message).
#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

#include "models/platform/task_graph.h"

namespace trainsim {

/// Thrown when device orders over a task graph cannot all run to the end. A logic error: the
/// schedules and placements trainsim ships never produce one (check_orders() proves each
/// order before it runs), so one means a bug, named precisely.
class StuckError : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

/// The state of a run that stopped short: `next[d]` is the position in orders[d] of the task
/// device d waits to start (orders[d].size() if it finished its list); `done[i]` whether task
/// i has run. A finished producer on another device whose consumer still waits is a transfer
/// that never arrived.
std::string stuck_report(const TaskGraph& g, const DeviceOrders& orders,
                         const std::vector<std::size_t>& next, const std::vector<char>& done);

}  // namespace trainsim
