#include "sim/sweep/sweep_table.h"

#include <algorithm>
#include <fstream>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "sim/core/csv.h"
#include "sim/core/error.h"
#include "sim/core/format.h"
#include "sim/io/checksum.h"
#include "sim/io/file_set.h"
#include "sim/sweep/row_store.h"

namespace trainsim {

namespace {

constexpr int kResultFormat = 2;  // 2: with a checksum

PointResult point_result_of(const std::string& text, const std::string& source) {
  const nlohmann::json j = parse_checked_json(text, kResultFormat, source);
  try {
    PointResult r;
    r.seconds = j.at("seconds").get<double>();
    if (!j.at("cycles").is_null()) r.cycles = j.at("cycles").get<double>();
    r.energy = j.at("energy").get<double>();
    r.energy_unit = j.at("energy_unit").get<std::string>();
    r.dram_bytes = j.at("dram_bytes").get<double>();
    r.utilization = j.at("utilization").get<double>();
    if (!j.at("test_accuracy").is_null()) r.test_accuracy = j.at("test_accuracy").get<double>();
    return r;
  } catch (const nlohmann::json::exception& e) {
    throw UserError(source + ": not a point's result (" + e.what() + ")");
  }
}

}  // namespace

std::optional<PointResult> read_point_result(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return point_result_of(text.str(), path);
}

std::optional<PointResult> parse_point_result(const std::string& text) {
  try {
    return point_result_of(text, "result");
  } catch (const UserError&) {
    return std::nullopt;
  }
}

std::string point_result_json(const PointResult& r) {
  nlohmann::ordered_json j;
  j["seconds"] = r.seconds;
  j["cycles"] = r.cycles ? nlohmann::ordered_json(*r.cycles) : nullptr;
  j["energy"] = r.energy;
  j["energy_unit"] = r.energy_unit;
  j["dram_bytes"] = r.dram_bytes;
  j["utilization"] = r.utilization;
  j["test_accuracy"] = r.test_accuracy ? nlohmann::ordered_json(*r.test_accuracy) : nullptr;
  return checked_json_text(j, kResultFormat);
}

namespace {

// The Pareto front of (seconds, energy) over the rows seen so far, kept as seconds ->
// energy with energy falling as seconds rise: each row costs a logarithmic update, and the
// front is all a pass over a large table holds.
class Front {
 public:
  void add(double seconds, double energy) {
    auto it = by_seconds_.upper_bound(seconds);
    if (it != by_seconds_.begin() && dominates(*std::prev(it), seconds, energy)) return;
    if (it != by_seconds_.begin() && std::prev(it)->first == seconds) it = std::prev(it);
    // What the new row dominates: the entries from its seconds on whose energy is not lower.
    while (it != by_seconds_.end() && it->second >= energy) it = by_seconds_.erase(it);
    by_seconds_.emplace(seconds, energy);
  }
  /// Whether a row with these figures is on the front (no row seen dominates it).
  bool holds(double seconds, double energy) const {
    auto it = by_seconds_.upper_bound(seconds);
    // The entry with the most seconds not above the row's has the least energy of them all.
    return it == by_seconds_.begin() || !dominates(*std::prev(it), seconds, energy);
  }

 private:
  static bool dominates(const std::pair<const double, double>& f, double seconds, double energy) {
    return f.first <= seconds && f.second <= energy && (f.first < seconds || f.second < energy);
  }
  std::map<double, double> by_seconds_;
};

std::vector<std::string> table_columns(const SweepSpec& spec) {
  std::vector<std::string> cols = {"id"};
  for (const std::string& k : spec.keys()) cols.push_back(k);
  for (const char* c : {"status", "seconds", "cycles", "energy", "energy_unit", "dram_bytes",
                        "utilization", "test_accuracy", "speedup", "pareto", "error"})
    cols.push_back(c);
  return cols;
}

}  // namespace

TableCounts write_sweep_table(const SweepSpec& spec, const PointList& points, const RowStore& store,
                              const std::string& path) {
  // Pass 1: the front, and the baseline's time (the first done row that is the baseline).
  Front front;
  std::optional<double> base_seconds;
  std::string base_id;
  store.scan([&](std::size_t k, const SweepRow& r) {
    if (!r.done) return;
    front.add(r.result.seconds, r.result.energy);
    if (!base_seconds && !spec.baseline.empty() && is_baseline(spec, points.at(k))) {
      base_seconds = r.result.seconds;
      base_id = points.at(k).id;
    }
  });
  // Pass 2: the rows, written out a block at a time.
  TableCounts counts;
  StreamedFile out(path);
  CsvTable csv(table_columns(spec));
  store.scan([&](std::size_t k, const SweepRow& r) {
    const SweepPoint p = points.at(k);
    ++counts.rows;
    csv.row().cell(p.id);
    for (const auto& kv : p.values) csv.cell(kv.second);
    if (!r.done) {
      ++counts.failed;
      csv.cell("failed");
      for (int c = 0; c < 9; ++c) csv.cell("");
      csv.cell(r.error);
    } else {
      const PointResult& res = r.result;
      csv.cell("done")
          .num("%.9g", res.seconds)
          .cell(res.cycles ? fmt("%.0f", *res.cycles) : std::string())
          .num("%.6e", res.energy)
          .cell(res.energy_unit)
          .num("%.0f", res.dram_bytes)
          .num("%.6f", res.utilization);
      if (res.test_accuracy)
        csv.num("%.6f", *res.test_accuracy);
      else
        csv.cell("");
      if (base_seconds && res.seconds > 0)
        csv.num("%.6f", *base_seconds / res.seconds);
      else
        csv.cell("");
      const bool on_front = front.holds(res.seconds, res.energy);
      counts.pareto += on_front;
      if (on_front) counts.featured.push_back(p.id);
      csv.cell(static_cast<std::int64_t>(on_front)).cell("");
    }
    if (counts.rows % 1024 == 0) out.append(csv.take());
  });
  out.append(csv.take());
  out.commit();
  if (!base_id.empty() &&
      std::find(counts.featured.begin(), counts.featured.end(), base_id) == counts.featured.end())
    counts.featured.push_back(base_id);
  return counts;
}

}  // namespace trainsim
