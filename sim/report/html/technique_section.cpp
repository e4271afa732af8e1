// The technique's section of a one-device run page (sim/report/html/run_sections.h).
#include <cmath>

#include "sim/report/html/readable.h"
#include "sim/report/html/run_sections.h"
#include "sim/report/html/sections.h"
#include "sim/techniques/technique.h"

namespace trainsim {

namespace {

// The record's technique (its label, "adagp-max@10"), when it has figures of its own: one with
// hardware, speculation or phases. Plain backprop has none, so it gets no section.
const TechniqueInfo* reporting_technique(const std::string& label) {
  const TechniqueInfo* info = find_technique(label.substr(0, label.find('@')));
  const bool figures =
      info != nullptr && (info->hardware != nullptr || info->speculates || info->phased());
  return figures ? info : nullptr;
}

}  // namespace

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
  // Its per-layer statistics, if it reports any (TechniqueInfo::layer_stats).
  if (info->layer_stats.key != nullptr)
    out += csv_html(dir, std::string(info->layer_stats.key) + ".csv");
  return out;
}

}  // namespace trainsim
