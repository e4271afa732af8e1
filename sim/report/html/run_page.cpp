// report.html of a run on one device (kinds run, shape-only, train): its key figures, then
// the sections of sim/report/html/run_sections.h.
#include <cmath>

#include "sim/report/html/readable.h"
#include "sim/report/html/report_pages.h"
#include "sim/report/html/run_sections.h"
#include "sim/report/html/sections.h"

namespace trainsim {

namespace {

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
  const CsvData& epochs = dir.csv("epochs.csv");
  const std::string curves = curves_html(epochs);
  if (!curves.empty()) page.section("Accuracy and loss", curves);
  const std::string phases = phases_html(s, unit);
  if (!phases.empty()) page.section("Time and energy", phases);
  // A shape-only run times one batch of each kind and size (batch_layers.csv); a trained
  // run sums every op of every batch (layers.csv).
  // The record says which it is (stats.json's kind), as tools/plot reads it.
  const bool shape_only = kind == "shape-only";  // kind-name ok: which file this kind wrote
  const std::string layer_file = shape_only ? "batch_layers.csv" : "layers.csv";
  const std::string layers = layers_html(dir, layer_file, unit);
  if (!layers.empty())
    page.section(shape_only ? "Layers and roles of the timed batches (one of each kind and size)"
                            : "Layers and roles",
                 layers);
  if (dir.has("phases.csv")) page.section("Batch kinds", csv_html(dir, "phases.csv"));
  const std::string dram = dram_html(dir, layer_file, s);
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
