#pragma once
// The points of a sweep: every combination of the axes' values (grid) or a seeded sample of
// them (random), each with a stable id derived from its values, so a point keeps its
// results directory when the sweep is run again, sharded or merged.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "sim/sweep/sweep_spec.h"

namespace trainsim {

struct SweepPoint {
  std::size_t index = 0;  ///< position in the sweep's order
  std::string id;         ///< 16 hex digits of a hash of its key=value pairs
  std::vector<std::pair<std::string, std::string>> values;  ///< key -> value, axis order
  /// The --set overrides that make it: the sweep's `set`, then its values.
  std::vector<std::string> overrides(const SweepSpec& s) const;
};

/// The sweep's points in order: the grid in row-major axis order (the last axis fastest), or
/// `budget` distinct grid points drawn with the sweep's seed, in grid order. UserError if the
/// sweep has a baseline and none of the points is it (a random sample that missed it; a grid
/// always holds it, load_sweep checks).
std::vector<SweepPoint> sweep_points(const SweepSpec& s);

/// Whether `p` has the baseline's value (same_value) of every baseline key.
bool is_baseline(const SweepSpec& s, const SweepPoint& p);

/// FNV-1a of the point's "key=value\n" lines, as 16 hex digits.
std::string point_id(const std::vector<std::pair<std::string, std::string>>& values);

}  // namespace trainsim
