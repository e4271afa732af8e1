#pragma once
// The results of a sweep: one row per finished point (done or failed), sweep.csv, the
// speedup against the baseline point and the Pareto front over (seconds, energy). The table
// is formed from rows on disk (sim/sweep/row_store.h) a block at a time, so its size is not
// bounded by memory.
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
  SweepPoint point;
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

class RowStore;

struct TableCounts {
  std::size_t rows = 0, failed = 0, pareto = 0;
  /// The points a reader of the table looks at first: those on the Pareto front, in point
  /// order, then the baseline point if it is not one of them.
  std::vector<std::string> featured;
};

/// Writes sweep.csv to `path` (whole or not at all: a temporary renamed over it): the
/// finished rows of `store`, whose k-th record is point k of `points`, in point order, with
/// the speedup against the spec's baseline point (the first done row that is it) and whether
/// each done row is Pareto-optimal in (seconds, energy): no other done row is at least as
/// fast and as frugal and better in one. Two sequential passes over the store; memory holds
/// a block of rows and the front.
TableCounts write_sweep_table(const SweepSpec& spec, const PointList& points, const RowStore& store,
                              const std::string& path);

}  // namespace trainsim
