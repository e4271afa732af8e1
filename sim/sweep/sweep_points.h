#pragma once
// The points of a sweep: every combination of the axes' values (grid) or a seeded sample of
// them (random), each with a stable id derived from its values, so a point keeps its
// results directory when the sweep is run again, sharded or merged. A point is formed from
// its position when it is asked for, not kept: a sweep of 100,000 points holds none of them.
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

/// The points of one sweep (or of one shard of it: every `count`-th point from `index`), in
/// order: the grid in row-major axis order (the last axis fastest), or `budget` distinct grid
/// points drawn with the sweep's seed, in grid order. A random sample keeps the grid position
/// of each drawn point (8 bytes a point); a grid keeps nothing per point.
class PointList {
 public:
  /// UserError if the sweep has a baseline and none of its points is it (a random sample
  /// that missed it; a grid always holds it, load_sweep checks).
  explicit PointList(const SweepSpec& s, std::size_t shard_index = 0, std::size_t shard_count = 1);
  std::size_t size() const { return size_; }
  /// How many consecutive points of the list differ only in the sweep's last axis (its
  /// size, for a whole grid; 1 for a random sample or a shard, whose neighbours do not).
  std::size_t group() const;
  /// The k-th point of this list (k < size()); its `index` is its place in the whole sweep.
  SweepPoint at(std::size_t k) const;

 private:
  const SweepSpec* spec_;
  std::size_t shard_index_, shard_count_;
  std::size_t size_ = 0;
  std::vector<std::uint64_t> drawn_;  ///< random: the grid positions drawn, ascending
  bool random_ = false;
};

/// Every point of the sweep, formed at once (for small sweeps: `compare`'s variants).
std::vector<SweepPoint> sweep_points(const SweepSpec& s);

/// Whether `p` has the baseline's value (same_value) of every baseline key.
bool is_baseline(const SweepSpec& s, const SweepPoint& p);

/// FNV-1a of the point's "key=value\n" lines, as 16 hex digits.
std::string point_id(const std::vector<std::pair<std::string, std::string>>& values);

}  // namespace trainsim
