// report.html of a run on one device (kinds run, shape-only, train).
#include <algorithm>
#include <cmath>
#include <map>

#include "sim/report/html/readable.h"
#include "sim/report/html/report_pages.h"
#include "sim/report/html/sections.h"
#include "sim/report/html/svg_chart.h"
#include "sim/techniques/technique.h"

namespace trainsim {

namespace {

// stats.json's energy components, in the order the energy tables list them.
const char* const kEnergyParts[] = {"mac", "rf", "noc", "buffer", "dram", "vector", "leakage"};

std::string accelerator_line(const nlohmann::ordered_json& s) {
  if (!s.contains("accelerator")) return "";
  // A shape-only record names the accelerator and its dataflow only.
  if (s["accelerator"].is_string())
    return json_text(s, "accelerator") + " (" + json_text(s, "dataflow") + ")";
  return json_text(s, "accelerator/name") + " (" + json_text(s, "accelerator/array") + " PEs, " +
         json_text(s, "accelerator/dataflow") + ", " + json_text(s, "accelerator/clock_ghz") +
         " GHz, energy table " + json_text(s, "accelerator/energy_table") + ")";
}

std::string trained_epochs(const nlohmann::ordered_json& s) {
  const std::string e = json_text(s, "final/epochs");
  return e.empty() ? json_text(s, "epochs") : e;
}

std::vector<KeyFigure> key_figures(const ResultsDir& dir, const std::string& unit) {
  const nlohmann::ordered_json& s = dir.stats();
  std::vector<KeyFigure> f;
  f.push_back(figure("status", "status", json_text(s, "status")));
  f.push_back(figure("network", "network",
                     json_text(s, "network/name") + " (" +
                         readable_count(json_number(s, "network/parameters")) + " parameters)"));
  f.push_back(figure("dataset", "dataset",
                     json_text(s, "dataset/name") + " (" + json_text(s, "dataset/train_samples") +
                         " train, " + json_text(s, "dataset/test_samples") + " test samples)"));
  f.push_back(figure("accelerator", "accelerator", accelerator_line(s)));
  f.push_back(figure("technique", "technique", json_text(s, "technique")));
  f.push_back(figure("fidelity", "fidelity", json_text(s, "fidelity")));
  f.push_back(figure("epochs", "epochs",
                     trained_epochs(s) + (s.contains("final") ? ""
                                                              : " (shape only: timed from "
                                                                "the layer shapes, no accuracy)")));
  const double acc = json_number(s, "final/test_accuracy");
  if (std::isfinite(acc))
    f.push_back(figure("test_accuracy", "final test accuracy", readable_percent(acc, 2), acc));
  // A trained run sums its epochs in "final"; a shape-only one has its totals only.
  const bool trained = s.contains("final");
  const double sec = json_number(s, trained ? "final/train_seconds" : "totals/train/seconds");
  const double cycles =
      json_number(s, trained ? "final/train_cycles" : "totals/train/elapsed_cycles");
  if (std::isfinite(sec)) {
    f.push_back(figure("train_seconds", "simulated training time", readable_seconds(sec), sec));
    f.push_back(figure("train_cycles", "training cycles", readable_count(cycles), cycles));
  }
  const double e = json_number(s, trained ? "final/train_energy" : "totals/train/energy/total");
  if (std::isfinite(e))
    f.push_back(figure("train_energy", "training energy", readable_energy(e, unit), e));
  const double dram = json_number(s, "totals/train/stats/dram_bytes");
  if (std::isfinite(dram))
    f.push_back(figure("train_dram_bytes", "training DRAM traffic", readable_bytes(dram), dram));
  const double util = json_number(s, "totals/train/stats/utilization");
  if (std::isfinite(util))
    f.push_back(
        figure("train_utilization", "PE utilization (training)", readable_percent(util), util));
  return f;
}

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
  const CsvData d = dir.csv(file);
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
  const CsvData d = dir.csv(file);
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

// The record's technique (its label, "adagp-max@10"), when it has figures of its own: one with
// hardware, speculation or phases. Plain backprop has none, so it gets no section.
const TechniqueInfo* reporting_technique(const std::string& label) {
  const TechniqueInfo* info = find_technique(label.substr(0, label.find('@')));
  const bool figures =
      info != nullptr && (info->hardware != nullptr || info->speculates || info->phased());
  return figures ? info : nullptr;
}

// The technique's section, laid out by what the technique declares (TechniqueInfo): its
// settings (its own keys), its hits and misses if it speculates, its phases if it has them,
// the hardware it adds; each figure as the run's record holds it.
std::string technique_html(const ResultsDir& dir, const nlohmann::ordered_json& s) {
  const TechniqueInfo* info = reporting_technique(json_text(s, "technique"));
  if (info == nullptr) return "";
  const std::string unit = json_text(s, "energy_unit");
  const bool trained = s.contains("technique_stats");
  const std::string at = trained ? "technique_stats/" : "";
  std::vector<std::pair<std::string, std::string>> rows;
  for (const std::string& key : info->keys) {
    const std::string v = json_text(s, at + key);
    if (!v.empty()) rows.emplace_back(key, v);
  }
  if (info->speculates) {
    const double hits = json_number(s, at + "hits"), misses = json_number(s, at + "misses");
    rows.emplace_back("hits / misses / cold starts",
                      readable_count(hits) + " / " + readable_count(misses) + " / " +
                          readable_count(json_number(s, at + "cold")));
    if (hits + misses > 0) rows.emplace_back("hit rate", readable_percent(hits / (hits + misses)));
    rows.emplace_back("largest output distance kept",
                      readable_number(json_number(s, at + "max_distance")));
    const double second = json_number(s, at + "second_unit/energy/total"),
                 train = json_number(s, "totals/train/energy/total");
    if (std::isfinite(second) && train > 0)
      rows.emplace_back("second unit's energy", readable_energy(second, unit) + " (" +
                                                    readable_percent(second / train) +
                                                    " of training)");
  }
  for (const char* k : {"extra_pes", "storage_bytes", "extra_storage_bytes"}) {
    const double v = json_number(s, at + k);
    if (v > 0)
      rows.emplace_back(k, k == std::string("extra_pes") ? readable_count(v) : readable_bytes(v));
  }
  std::string out = html_pairs(rows);
  // Its phases (a trained run: technique_stats.phases), or a shape-only run's batches by kind.
  HtmlTable t({trained ? "phase" : "batch kind", "ops", "time", "energy"});
  auto add = [&](const std::string& name, const nlohmann::ordered_json& v) {
    const double sec = json_number(v, "seconds"), e = json_number(v, "energy/total");
    const double ops = json_number(v, "ops");
    t.row({name, HtmlCell::number(readable_count(ops), ops),
           HtmlCell::number(readable_seconds(sec), sec),
           HtmlCell::number(readable_energy(e, unit), e)});
  };
  if (trained && info->phased() && s["technique_stats"].contains("phases")) {
    const auto& phases = s["technique_stats"]["phases"];
    for (const TechniqueInfo::Phase& ph : info->phases)
      if (phases.contains(ph.key)) add(ph.title, phases[ph.key]);
  } else if (!trained && s.contains("kinds") && s["kinds"].is_object()) {
    for (const auto& [kind, v] : s["kinds"].items()) add(kind, v);
  }
  if (t.rows() > 0) out += t.html();
  return out + csv_html(dir, "predictor.csv");
}

}  // namespace

HtmlPage run_page(const ResultsDir& dir) {
  const nlohmann::ordered_json& s = dir.stats();
  const std::string unit = json_text(s, "energy_unit").empty() ? "pJ" : json_text(s, "energy_unit");
  const std::string kind = json_text(s, "kind");
  HtmlPage page("trainsim " + (kind == "train" ? std::string("train") : std::string("run")) + ": " +
                    json_text(s, "experiment"),
                kind + " | " + json_text(s, "network/name") + " on " +
                    json_text(s, "dataset/name") +
                    (s.contains("accelerator") ? " | " + json_text(s, "accelerator/name") : "") +
                    " | technique " + json_text(s, "technique") + " | trainsim " +
                    json_text(s, "trainsim_version"));
  page.section("Summary", figures_table(key_figures(dir, unit)));
  const CsvData epochs = dir.csv("epochs.csv");
  const std::string curves = curves_html(epochs);
  if (!curves.empty()) page.section("Accuracy and loss", curves);
  const std::string phases = phases_html(s, unit);
  if (!phases.empty()) page.section("Time and energy", phases);
  // A shape-only run times one batch of each kind and size (batch_layers.csv); a trained
  // run sums every op of every batch (layers.csv).
  const bool shape_only = dir.has("batch_layers.csv");
  const std::string layers = layers_html(dir, shape_only ? "batch_layers.csv" : "layers.csv", unit);
  if (!layers.empty())
    page.section(shape_only ? "Layers and roles of the timed batches (one of each kind and size)"
                            : "Layers and roles",
                 layers);
  if (dir.has("phases.csv")) page.section("Batch kinds", csv_html(dir, "phases.csv"));
  const std::string dram = dram_html(dir, shape_only ? "batch_layers.csv" : "layers.csv", s);
  if (!dram.empty()) page.section("DRAM against the compulsory minimum", dram);
  const std::string units = units_html(s);
  if (!units.empty()) page.section("Units", units);
  const std::string technique = technique_html(dir, s);
  if (!technique.empty()) page.section("Technique: " + json_text(s, "technique"), technique);
  const std::string timeline =
      timeline_html(dir, "timeline.json", "Timeline: the first steps, one track per unit");
  if (!timeline.empty()) page.section("Timeline", timeline);
  page.section("Epochs", csv_html(dir, "epochs.csv"));
  const std::string config = config_html(dir);
  if (!config.empty()) page.section("Configuration", config);
  page.section("Files", files_html(dir));
  return page;
}

}  // namespace trainsim
