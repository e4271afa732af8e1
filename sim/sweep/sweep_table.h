#pragma once
// The results of a sweep: one row per finished point (done or failed), sweep.csv, the
// speedup against the baseline point and the Pareto front over (seconds, energy).
#include <optional>
#include <string>
#include <vector>

#include "sim/sweep/sweep_points.h"

namespace trainsim {

/// The headline figures one point's run reports (`trainsim run --summary FILE`).
struct PointResult {
  double seconds = 0, energy = 0, dram_bytes = 0, utilization = 0;
  std::optional<double> cycles;  ///< none for a system without one clock (hype:)
  std::string energy_unit;
  std::optional<double> test_accuracy;
};

struct SweepRow {
  const SweepPoint* point = nullptr;
  bool done = false;  ///< false: failed, with `error`
  PointResult result;
  std::string error;
};

/// Reads a --summary file; nullopt if it is missing, UserError naming it if it is damaged
/// (it carries a checksum: a flipped byte must not enter the sweep's table).
std::optional<PointResult> read_point_result(const std::string& path);
/// The same from the file's text; nullopt if it is damaged.
std::optional<PointResult> parse_point_result(const std::string& text);
/// The text of a --summary file for `r` (with its format version and checksum).
std::string point_result_json(const PointResult& r);

/// sweep.csv: `rows` in point order, with the speedup against the spec's baseline point (if
/// it is among the done rows) and whether each done row is Pareto-optimal in (seconds,
/// energy): no other done row is at least as fast and as frugal and better in one.
std::string sweep_csv(const SweepSpec& spec, std::vector<SweepRow> rows);
/// Indices (into `rows`) of the Pareto-optimal done rows.
std::vector<std::size_t> pareto_front(const std::vector<SweepRow>& rows);

}  // namespace trainsim
