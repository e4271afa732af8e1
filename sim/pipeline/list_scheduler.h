#pragma once
// List scheduling: a device that becomes free starts, among the tasks whose inputs have
// arrived, the one that can start earliest, ties broken by the schedule's priority. Chimera's
// order is this; it lets a device run the next batch's work while waiting for the current
// one (Chimera under ADA-GP).
#include <array>
#include <functional>

#include "sim/pipeline/schedule.h"

namespace trainsim {

struct ListPolicy {
  /// Smaller first; compared after the start time.
  std::function<std::array<int, 4>(const Task&)> priority;
};

DeviceOrders list_schedule(const TaskGraph& g, const PlanCosts& c, const ListPolicy& policy);

/// Update and gradient-done markers go first when they are ready: they are short and
/// release the next batch.
inline int bookkeeping_first(const Task& t) {
  return t.pass == Pass::kUpdate || t.pass == Pass::kGradDone || t.pass == Pass::kReduce ? 0 : 1;
}

}  // namespace trainsim
