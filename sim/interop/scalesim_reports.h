#pragma once
// SCALE-Sim's three report files, with its exact headers, so scripts written against
// SCALE-Sim read trainsim's: COMPUTE_REPORT.csv, BANDWIDTH_REPORT.csv,
// DETAILED_ACCESS_REPORT.csv (docs/interop.md says what each column holds here).
#include <string>
#include <vector>

#include "sim/spec/accel_spec.h"
#include "sim/spec/op_stats.h"

namespace trainsim {

struct ScaleSimLayerResult {
  std::string name;
  OpStats stats;      ///< trainsim's own counts of the op
  ScaleSimView view;  ///< the op under SCALE-Sim's conventions
};

/// Writes the three reports into `dir` (created if needed).
void write_scalesim_reports(const std::string& dir, const AcceleratorSpec& acc,
                            const std::vector<ScaleSimLayerResult>& layers);

}  // namespace trainsim
