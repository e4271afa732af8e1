#include "sim/sweep/sweep_points.h"

#include <algorithm>
#include <cstdio>
#include <unordered_set>

#include "sim/core/error.h"
#include "sim/core/rng.h"

namespace trainsim {

namespace {

std::uint64_t grid_size(const SweepSpec& s) {
  std::uint64_t total = 1;
  for (const SweepAxis& a : s.axes) total *= a.size();
  return total;
}

// The point at position `index` of the sweep, grid position `flat`.
SweepPoint point_of(const SweepSpec& s, std::size_t index, std::uint64_t flat) {
  SweepPoint p;
  p.index = index;
  // Row-major: the last axis varies fastest.
  std::vector<std::size_t> digit(s.axes.size());
  for (std::size_t a = s.axes.size(); a-- > 0;) {
    digit[a] = static_cast<std::size_t>(flat % s.axes[a].size());
    flat /= s.axes[a].size();
  }
  for (std::size_t a = 0; a < s.axes.size(); ++a)
    for (std::size_t key = 0; key < s.axes[a].keys.size(); ++key)
      p.values.emplace_back(s.axes[a].keys[key], s.axes[a].values[digit[a]][key]);
  p.id = point_id(p.values);
  return p;
}

}  // namespace

std::string point_id(const std::vector<std::pair<std::string, std::string>>& values) {
  std::uint64_t h = 14695981039346656037ull;
  auto mix = [&](const std::string& s) {
    for (unsigned char c : s) {
      h ^= c;
      h *= 1099511628211ull;
    }
  };
  for (const auto& [k, v] : values) mix(k + "=" + v + "\n");
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

std::vector<std::string> SweepPoint::overrides(const SweepSpec& s) const {
  std::vector<std::string> out = s.set;
  for (const auto& [k, v] : values) out.push_back(k + "=" + v);
  return out;
}

PointList::PointList(const SweepSpec& s, std::size_t shard_index, std::size_t shard_count)
    : spec_(&s), shard_index_(shard_index), shard_count_(std::max<std::size_t>(shard_count, 1)) {
  const std::uint64_t total = grid_size(s);
  std::uint64_t n = total;
  if (s.mode == "random" && static_cast<std::uint64_t>(s.budget) < total) {
    // Floyd's algorithm: `budget` distinct grid positions, each subset equally likely.
    random_ = true;
    Rng rng(s.seed);
    const std::uint64_t k = static_cast<std::uint64_t>(s.budget);
    std::unordered_set<std::uint64_t> pick;
    pick.reserve(static_cast<std::size_t>(k));
    for (std::uint64_t j = total - k; j < total; ++j) {
      const std::uint64_t t = rng.below(j + 1);
      if (!pick.insert(t).second) pick.insert(j);
    }
    drawn_.assign(pick.begin(), pick.end());
    std::sort(drawn_.begin(), drawn_.end());
    n = k;
  }
  size_ =
      n > shard_index_ ? static_cast<std::size_t>((n - shard_index_ - 1) / shard_count_ + 1) : 0;
  // A grid holds every combination, the baseline's among them; a sample (all of it, not
  // only this shard) may miss it.
  if (!s.baseline.empty() && random_) {
    bool found = false;
    for (std::size_t i = 0; i < drawn_.size() && !found; ++i)
      found = is_baseline(s, point_of(s, i, drawn_[i]));
    if (!found)
      throw UserError(s.source + ": baseline: " + baseline_text(s) + " is not among the " +
                      std::to_string(drawn_.size()) +
                      " points search: {mode: random} draws (seed " + std::to_string(s.seed) +
                      "): another seed or budget, or a grid search, would run it");
  }
}

std::size_t PointList::group() const {
  if (random_ || shard_count_ > 1 || spec_->axes.empty()) return 1;
  return std::max<std::size_t>(1, spec_->axes.back().size());
}

SweepPoint PointList::at(std::size_t k) const {
  const std::size_t index = shard_index_ + k * shard_count_;
  return point_of(*spec_, index, random_ ? drawn_[index] : index);
}

std::vector<SweepPoint> sweep_points(const SweepSpec& s) {
  const PointList list(s);
  std::vector<SweepPoint> points;
  points.reserve(list.size());
  for (std::size_t k = 0; k < list.size(); ++k) points.push_back(list.at(k));
  return points;
}

bool is_baseline(const SweepSpec& s, const SweepPoint& p) {
  for (const auto& [k, v] : s.baseline)
    for (const auto& [pk, pv] : p.values)
      if (pk == k && !same_value(pv, v)) return false;
  return true;
}

}  // namespace trainsim
