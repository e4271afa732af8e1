#include "sim/sweep/sweep_table.h"

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "sim/core/csv.h"
#include "sim/core/error.h"
#include "sim/core/format.h"
#include "sim/io/checksum.h"

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

std::vector<std::size_t> pareto_front(const std::vector<SweepRow>& rows) {
  std::vector<std::size_t> front;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (!rows[i].done) continue;
    const PointResult& a = rows[i].result;
    bool dominated = false;
    for (std::size_t j = 0; j < rows.size() && !dominated; ++j) {
      if (j == i || !rows[j].done) continue;
      const PointResult& b = rows[j].result;
      dominated = b.seconds <= a.seconds && b.energy <= a.energy &&
                  (b.seconds < a.seconds || b.energy < a.energy);
    }
    if (!dominated) front.push_back(i);
  }
  return front;
}

std::string sweep_csv(const SweepSpec& spec, std::vector<SweepRow> rows) {
  std::sort(rows.begin(), rows.end(),
            [](const SweepRow& a, const SweepRow& b) { return a.point->index < b.point->index; });
  const SweepRow* base = nullptr;
  if (!spec.baseline.empty())
    for (const SweepRow& r : rows) {
      if (r.done && is_baseline(spec, *r.point)) {
        base = &r;
        break;
      }
    }
  std::vector<char> pareto(rows.size(), 0);
  for (std::size_t i : pareto_front(rows)) pareto[i] = 1;
  std::vector<std::string> cols = {"id"};
  for (const std::string& k : spec.keys()) cols.push_back(k);
  for (const char* c : {"status", "seconds", "cycles", "energy", "energy_unit", "dram_bytes",
                        "utilization", "test_accuracy", "speedup", "pareto", "error"})
    cols.push_back(c);
  CsvTable csv(cols);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const SweepRow& r = rows[i];
    csv.row().cell(r.point->id);
    for (const auto& kv : r.point->values) csv.cell(kv.second);
    if (!r.done) {
      csv.cell("failed");
      for (int c = 0; c < 9; ++c) csv.cell("");
      csv.cell(r.error);
      continue;
    }
    const PointResult& p = r.result;
    csv.cell("done")
        .num("%.9g", p.seconds)
        .cell(p.cycles ? fmt("%.0f", *p.cycles) : std::string())
        .num("%.6e", p.energy)
        .cell(p.energy_unit)
        .num("%.0f", p.dram_bytes)
        .num("%.6f", p.utilization);
    if (p.test_accuracy)
      csv.num("%.6f", *p.test_accuracy);
    else
      csv.cell("");
    if (base != nullptr && p.seconds > 0)
      csv.num("%.6f", base->result.seconds / p.seconds);
    else
      csv.cell("");
    csv.cell(static_cast<std::int64_t>(pareto[i])).cell("");
  }
  return csv.text();
}

}  // namespace trainsim
