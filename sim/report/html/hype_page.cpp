// report.html of a Hype-training placement run on GPUs and offload devices.
#include <cmath>

#include "sim/report/html/readable.h"
#include "sim/report/html/report_pages.h"
#include "sim/report/html/sections.h"
#include "sim/report/html/svg_chart.h"

namespace trainsim {

namespace {

std::vector<KeyFigure> key_figures(const ResultsDir& dir) {
  const nlohmann::ordered_json& s = dir.stats();
  std::vector<KeyFigure> f;
  f.push_back(figure("network", "network", json_text(s, "network")));
  f.push_back(figure("dataset", "dataset", json_text(s, "dataset")));
  f.push_back(figure("policy", "policy", json_text(s, "policy")));
  f.push_back(figure("system", "system",
                     json_text(s, "system/gpus") + "x " + json_text(s, "system/gpu") + " + " +
                         json_text(s, "system/offloads") + "x " + json_text(s, "system/offload")));
  // Totals over the epochs the run trained (epochs.csv): the figures its final line prints.
  const CsvData& e = dir.csv("epochs.csv");
  double sec = 0, joules = 0, gpu_sec = 0, gpu_j = 0;
  for (std::size_t r = 0; r < e.rows.size(); ++r) {
    sec += e.number(r, "seconds"), joules += e.number(r, "energy");
    gpu_sec += e.number(r, "gpu_only_seconds"), gpu_j += e.number(r, "gpu_only_energy_j");
  }
  const double acc = e.rows.empty() ? NAN : e.number(e.rows.size() - 1, "test_accuracy");
  if (std::isfinite(acc))
    f.push_back(figure("test_accuracy", "final test accuracy", readable_percent(acc, 2), acc));
  f.push_back(figure("train_seconds", "simulated training time", readable_seconds(sec), sec));
  f.push_back(figure("train_energy", "training energy", readable_energy(joules, "J"), joules));
  f.push_back(
      figure("gpu_only_seconds", "the same on the GPUs alone", readable_seconds(gpu_sec), gpu_sec));
  f.push_back(
      figure("gpu_only_energy", "energy on the GPUs alone", readable_energy(gpu_j, "J"), gpu_j));
  const double tp = json_number(s, "gains/throughput"),
               ee = json_number(s, "gains/energy_efficiency"),
               er = json_number(s, "gains/energy_reduction");
  f.push_back(figure("throughput_gain", "throughput gain", readable_percent(tp), tp));
  f.push_back(figure("energy_efficiency_gain", "energy-efficiency gain", readable_percent(ee), ee));
  if (std::isfinite(er))  // (directories written before it was recorded have none)
    f.push_back(figure("energy_reduction", "energy reduction", readable_percent(er), er));
  f.push_back(figure(
      "offloaded_ops", "ops offloaded per iteration",
      json_text(s, "iteration/policy/offloaded_ops") + " of " + json_text(s, "ops_per_iteration")));
  return f;
}

// Average and peak power over one iteration, per run (policy, gpu-only).
std::string power_html(const ResultsDir& dir) {
  const CsvData& d = dir.csv("power.csv");
  if (d.empty()) return "";
  std::vector<ChartSeries> series;
  for (std::size_t r = 0; r < d.rows.size(); ++r) {
    const std::string run = d.cell(r, "run");
    if (series.empty() || series.back().name != run + " average")
      series.push_back({run + " average", {}, {}});
    series.back().x.push_back(1e3 * d.number(r, "t_s"));
    series.back().y.push_back(d.number(r, "avg_w"));
  }
  return svg_line_chart("Power over one iteration", "time (ms)", "watts", series,
                        [](double w) { return readable_number(w) + " W"; }) +
         csv_html(dir, "power.csv", 50);
}

}  // namespace

HtmlPage hype_page(const ResultsDir& dir) {
  const nlohmann::ordered_json& s = dir.stats();
  HtmlPage page("trainsim run: " + json_text(s, "experiment"),
                "hype | " + json_text(s, "network") + " | policy " + json_text(s, "policy") +
                    " | trainsim " + json_text(s, "trainsim_version"));
  page.section("Summary", figures_table(key_figures(dir)));
  // With real data the network trains as on one device (docs/hype.md): its curves.
  const std::string curves = curves_html(dir.csv("epochs.csv"));
  if (!curves.empty()) page.section("Accuracy and loss", curves);
  page.section("Devices", csv_html(dir, "devices.csv"));
  page.section("OpSite by op type", csv_html(dir, "placement.csv"));
  const std::string power = power_html(dir);
  if (!power.empty()) page.section("Power", power);
  const std::string timeline = timeline_html(
      dir, "timeline.json", "Timeline: one iteration, policy " + json_text(s, "policy"));
  if (!timeline.empty()) page.section("Timeline", timeline);
  page.section("Ops of one iteration", csv_html(dir, "ops.csv", 300));
  page.section("Links", csv_html(dir, "links.csv"));
  page.section("Epochs", csv_html(dir, "epochs.csv"));
  page.section("Configuration", config_html(dir));
  page.section("Files", files_html(dir));
  return page;
}

}  // namespace trainsim
