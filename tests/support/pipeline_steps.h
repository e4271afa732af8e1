#pragma once
// Runs a pipeline schedule in unit steps on the platform: every stage equally fast, free
// links (zero latency, zero bytes), updates free. One step = 1000 ps.
#include <cstdint>
#include <string>
#include <vector>

#include "models/platform/platform.h"
#include "sim/pipeline/schedule.h"

namespace trainsim::test {

struct StepCosts {
  double f = 1, b = 2;   ///< forward; backward (data + weight when not split)
  double bd = 1, w = 1;  ///< split backward (Zero Bubble)
};

struct StepRun {
  TaskGraph graph;
  DeviceOrders orders;
  PlatformResult result;
  double steps() const { return static_cast<double>(result.makespan_ps) / 1000.0; }
  /// Idle device time over devices x makespan.
  double idle_fraction() const;
  /// Most Phase BP micro-batches between forward and backward on `device` at any time.
  int peak_inflight(int device) const;
};

StepRun run_steps(const std::string& schedule, int devices, int micro_batches,
                  const std::vector<BatchKind>& batches, const StepCosts& costs = {},
                  int chunks = 1, const std::vector<std::vector<std::string>>& orders = {});

}  // namespace trainsim::test
