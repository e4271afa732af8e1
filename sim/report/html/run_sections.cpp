// The one-device run page's sections (sim/report/html/run_sections.h).
#include "sim/report/html/run_sections.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "sim/report/html/readable.h"
#include "sim/report/html/sections.h"
#include "sim/report/html/svg_chart.h"

namespace trainsim {

namespace {

// stats.json's energy components, in the order the energy tables list them.
const char* const kEnergyParts[] = {"mac",         "rf",   "noc",    "buffer",
                                    "accumulator", "dram", "vector", "leakage"};

}  // namespace

// Per phase (train, eval and a technique's own phases): time, traffic, energy, and the
// energy's parts as one stacked bar each.
std::string phases_html(const nlohmann::ordered_json& s, const std::string& unit) {
  if (!s.contains("totals") || !s["totals"].is_object()) return "";
  HtmlTable t({"phase", "cycles", "time", "DRAM", "energy", "utilization", "stall"});
  std::vector<BarRow> bars;
  for (const auto& [phase, v] : s["totals"].items()) {
    if (!v.is_object() || !v.contains("stats")) continue;
    const double cycles = json_number(v, "stats/cycles");
    const double sec = json_number(v, "seconds"), dram = json_number(v, "stats/dram_bytes"),
                 energy = json_number(v, "energy/total");
    t.row({phase, HtmlCell::number(readable_count(cycles), cycles),
           HtmlCell::number(readable_seconds(sec), sec),
           HtmlCell::number(readable_bytes(dram), dram),
           HtmlCell::number(readable_energy(energy, unit), energy),
           readable_percent(json_number(v, "stats/utilization")),
           readable_percent(cycles > 0 ? json_number(v, "stats/stall_cycles") / cycles : NAN)});
    BarRow b{phase, {}};
    for (const char* part : kEnergyParts)
      b.parts.push_back(json_number(v, "energy/" + std::string(part)));
    bars.push_back(b);
  }
  std::vector<std::string> names(std::begin(kEnergyParts), std::end(kEnergyParts));
  return t.html() + svg_bar_chart("Energy per phase, by component (" + unit + " table)", names,
                                  bars, [&](double v) { return readable_energy(v, unit); });
}

// Per layer: training cycles and energy stacked by role, from layers.csv.
std::string layers_html(const ResultsDir& dir, const std::string& file, const std::string& unit) {
  const CsvData& d = dir.csv(file);
  if (d.empty()) return "";
  std::vector<std::string> roles, layers;
  std::map<std::string, std::map<std::string, std::pair<double, double>>> at;  // layer, role
  const std::string energy_col = d.column("energy_pj") >= 0 ? "energy_pj" : "energy_norm";
  for (std::size_t r = 0; r < d.rows.size(); ++r) {
    if (d.cell(r, "phase") != "train") continue;
    const std::string layer = d.cell(r, "layer") + " " + d.cell(r, "name");
    const std::string role = d.cell(r, "role");
    if (std::find(layers.begin(), layers.end(), layer) == layers.end()) layers.push_back(layer);
    if (std::find(roles.begin(), roles.end(), role) == roles.end()) roles.push_back(role);
    auto& cell = at[layer][role];
    cell.first += d.number(r, "cycles");
    const double e = d.number(r, energy_col);
    if (std::isfinite(e)) cell.second += e;
  }
  std::vector<BarRow> cycles, energy;
  for (const std::string& l : layers) {
    BarRow c{l, {}}, e{l, {}};
    for (const std::string& role : roles) {
      const auto it = at[l].find(role);
      c.parts.push_back(it == at[l].end() ? 0 : it->second.first);
      e.parts.push_back(it == at[l].end() ? 0 : it->second.second);
    }
    cycles.push_back(c), energy.push_back(e);
  }
  std::string out;
  if (layers.size() <= 80) {
    out += svg_bar_chart("Training cycles per layer, by role", roles, cycles, readable_count);
    out += svg_bar_chart("Training energy per layer, by role", roles, energy,
                         [&](double v) { return readable_energy(v, unit); });
  } else {
    out += html_para(std::to_string(layers.size()) +
                     " layers: too many for a chart; the table below sorts them.");
  }
  return out + csv_html(dir, file, 300);
}

// DRAM traffic against the least any mapping could move (each stored word once): per phase,
// then per layer and role of the training phase, the largest excess first. Inter-op
// residency (an operand found on chip) can take an op below its minimum.
std::string dram_html(const ResultsDir& dir, const std::string& file,
                      const nlohmann::ordered_json& s) {
  const CsvData& d = dir.csv(file);
  if (d.empty() || d.column("compulsory_dram_bytes") < 0) return "";
  const auto ratio = [](double dram, double least) {
    return least > 0 ? readable_number(dram / least) + "x" : std::string();
  };
  HtmlTable phases({"phase", "DRAM", "compulsory minimum", "DRAM / minimum"});
  if (s.contains("totals") && s["totals"].is_object())
    for (const auto& [phase, v] : s["totals"].items()) {
      const double dram = json_number(v, "stats/dram_bytes"),
                   least = json_number(v, "stats/compulsory_dram_bytes");
      if (!std::isfinite(least)) continue;
      phases.row({phase, HtmlCell::number(readable_bytes(dram), dram),
                  HtmlCell::number(readable_bytes(least), least), ratio(dram, least)});
    }
  struct Row {
    std::string layer, role;
    double dram, least;
  };
  std::vector<Row> rows;
  std::vector<BarRow> bars;
  std::map<std::string, std::pair<double, double>> per_layer;
  std::vector<std::string> order;
  for (std::size_t r = 0; r < d.rows.size(); ++r) {
    if (d.cell(r, "phase") != "train") continue;
    const std::string layer = d.cell(r, "layer") + " " + d.cell(r, "name");
    const double dram = d.number(r, "dram_bytes"), least = d.number(r, "compulsory_dram_bytes");
    rows.push_back({layer, d.cell(r, "role"), dram, least});
    if (!per_layer.count(layer)) order.push_back(layer);
    per_layer[layer].first += dram, per_layer[layer].second += least;
  }
  std::stable_sort(rows.begin(), rows.end(),
                   [](const Row& a, const Row& b) { return a.dram - a.least > b.dram - b.least; });
  HtmlTable t({"layer", "role", "DRAM", "compulsory minimum", "DRAM / minimum"});
  for (const Row& r : rows)
    t.row({r.layer, r.role, HtmlCell::number(readable_bytes(r.dram), r.dram),
           HtmlCell::number(readable_bytes(r.least), r.least), ratio(r.dram, r.least)});
  t.limit(40);
  for (const std::string& l : order) {
    const auto& [dram, least] = per_layer[l];
    bars.push_back({l, {std::min(dram, least), std::max(0.0, dram - least)}});
  }
  std::string out = phases.html();
  if (order.size() <= 80)
    out += svg_bar_chart("Training DRAM traffic per layer: the compulsory minimum and the excess",
                         {"up to the minimum", "above the minimum"}, bars, readable_bytes);
  return out +
         html_para(
             "Per layer and role, the largest excess first (the minimum counts each stored "
             "word of the op once, mapping/bounds.h; an operand kept on chip from the op "
             "before can take an op below it):") +
         t.html();
}

// Each unit's busy share of the run's cycles (never above 100%: a unit is busy or not).
std::string units_html(const nlohmann::ordered_json& s) {
  if (!s.contains("units") || !s["units"].is_object()) return "";
  HtmlTable t({"unit", "busy cycles", "busy", "work"});
  std::vector<BarRow> bars;
  for (const auto& [unit, v] : s["units"].items()) {
    const double busy = json_number(v, "busy_fraction");
    std::string work;
    for (const char* k : {"macs", "ops", "reads", "writes", "words", "bytes"})
      if (std::isfinite(json_number(v, k)))
        work += (work.empty() ? "" : ", ") + readable_count(json_number(v, k)) + " " + k;
    const double cycles = json_number(v, "busy_cycles");
    t.row({unit, HtmlCell::number(readable_count(cycles), cycles), readable_percent(busy), work});
    if (std::isfinite(busy)) bars.push_back({unit, {100 * busy}});
  }
  return t.html() + svg_bar_chart("Busy share of the run, per unit", {"busy"}, bars,
                                  [](double v) { return readable_number(v) + "%"; });
}

}  // namespace trainsim
