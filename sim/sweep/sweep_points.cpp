#include "sim/sweep/sweep_points.h"

#include <algorithm>
#include <cstdio>
#include <set>

#include "sim/core/error.h"
#include "sim/core/rng.h"

namespace trainsim {

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

std::vector<SweepPoint> sweep_points(const SweepSpec& s) {
  std::uint64_t total = 1;
  for (const SweepAxis& a : s.axes) total *= a.size();
  std::vector<std::uint64_t> chosen;
  if (s.mode == "random" && static_cast<std::uint64_t>(s.budget) < total) {
    // Floyd's algorithm: `budget` distinct indices, each subset equally likely.
    Rng rng(s.seed);
    std::set<std::uint64_t> pick;
    const std::uint64_t k = static_cast<std::uint64_t>(s.budget);
    for (std::uint64_t j = total - k; j < total; ++j) {
      const std::uint64_t t = rng.below(j + 1);
      if (!pick.insert(t).second) pick.insert(j);
    }
    chosen.assign(pick.begin(), pick.end());
  } else {
    for (std::uint64_t i = 0; i < total; ++i) chosen.push_back(i);
  }
  std::vector<SweepPoint> points;
  for (std::uint64_t flat : chosen) {
    SweepPoint p;
    p.index = points.size();
    // Row-major: the last axis varies fastest.
    std::vector<std::size_t> digit(s.axes.size());
    for (std::size_t a = s.axes.size(); a-- > 0;) {
      digit[a] = static_cast<std::size_t>(flat % s.axes[a].size());
      flat /= s.axes[a].size();
    }
    for (std::size_t a = 0; a < s.axes.size(); ++a)
      for (std::size_t k = 0; k < s.axes[a].keys.size(); ++k)
        p.values.emplace_back(s.axes[a].keys[k], s.axes[a].values[digit[a]][k]);
    p.id = point_id(p.values);
    points.push_back(std::move(p));
  }
  if (!s.baseline.empty() && std::none_of(points.begin(), points.end(),
                                          [&](const SweepPoint& p) { return is_baseline(s, p); }))
    throw UserError(s.source + ": baseline: " + baseline_text(s) + " is not among the " +
                    std::to_string(points.size()) + " points search: {mode: random} draws (seed " +
                    std::to_string(s.seed) +
                    "): another seed or budget, or a grid search, would run it");
  return points;
}

bool is_baseline(const SweepSpec& s, const SweepPoint& p) {
  for (const auto& [k, v] : s.baseline)
    for (const auto& [pk, pv] : p.values)
      if (pk == k && !same_value(pv, v)) return false;
  return true;
}

}  // namespace trainsim
