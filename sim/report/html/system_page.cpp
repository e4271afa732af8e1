// report.html of a pipeline run on a system of devices.
#include <cmath>

#include "sim/report/html/readable.h"
#include "sim/report/html/report_pages.h"
#include "sim/report/html/sections.h"
#include "sim/report/html/svg_chart.h"

namespace trainsim {

namespace {

std::vector<KeyFigure> key_figures(const nlohmann::ordered_json& s) {
  const std::string unit = json_text(s, "totals/device_energy_unit");
  std::vector<KeyFigure> f;
  f.push_back(figure("status", "status", json_text(s, "status")));
  f.push_back(figure("network", "network", json_text(s, "network")));
  f.push_back(figure("dataset", "dataset", json_text(s, "dataset/name")));
  f.push_back(figure("system", "system",
                     json_text(s, "system/name") + " (" + json_text(s, "system/devices") +
                         " devices, " + json_text(s, "system/topology") + ")"));
  f.push_back(figure("schedule", "schedule",
                     json_text(s, "pipeline/schedule") + ", " +
                         json_text(s, "pipeline/micro_batches") + " micro-batches of " +
                         json_text(s, "pipeline/micro_batch_size") + ", " +
                         json_text(s, "pipeline/stages") + " stages, " +
                         json_text(s, "pipeline/replicas") + " replica(s)"));
  f.push_back(figure("technique", "technique", json_text(s, "technique")));
  const double acc = json_number(s, "totals/test_accuracy");
  if (std::isfinite(acc))
    f.push_back(figure("test_accuracy", "final test accuracy", readable_percent(acc, 2), acc));
  const double sec = json_number(s, "totals/train_seconds");
  f.push_back(figure("train_seconds", "simulated training time", readable_seconds(sec), sec));
  const double sps = json_number(s, "totals/samples_per_second");
  f.push_back(figure("samples_per_second", "samples per second", readable_count(sps), sps));
  const double idle = json_number(s, "totals/idle_fraction");
  f.push_back(figure("idle_fraction", "device idle share", readable_percent(idle), idle));
  const double e = json_number(s, "totals/device_energy");
  f.push_back(figure("train_energy", "device energy", readable_energy(e, unit), e));
  const double le = json_number(s, "totals/link_energy_pj");
  f.push_back(figure("link_energy", "link energy", readable_energy(le, "pJ"), le));
  return f;
}

}  // namespace

HtmlPage system_page(const ResultsDir& dir) {
  const nlohmann::ordered_json& s = dir.stats();
  // A technique whose work depends on the data was timed from its numerics' ops on the one
  // device, not by the schedule (stats.json "timing").
  const bool streamed = json_text(s, "timing") == "numerics";
  const std::string timing = streamed ? json_text(s, "technique") + " timed from its ops"
                                      : json_text(s, "pipeline/schedule");
  HtmlPage page("trainsim run: " + json_text(s, "experiment"),
                "system | " + json_text(s, "network") + " on " + json_text(s, "dataset/name") +
                    " | " + json_text(s, "system/name") + ", " + timing + " | trainsim " +
                    json_text(s, "trainsim_version"));
  page.section("Summary", figures_table(key_figures(s)));
  const std::string curves = curves_html(dir.csv("epochs.csv"));
  if (!curves.empty()) page.section("Accuracy and loss", curves);
  page.section("Devices", device_time_html(dir, "Busy and idle time per device", "accelerator",
                                           {{"busy_seconds", "busy"}, {"idle_seconds", "idle"}}));
  page.section(streamed ? "Stages (backprop's costs, for reference)" : "Stages",
               csv_html(dir, "stages.csv"));
  page.section("Links", csv_html(dir, "links.csv"));
  const std::string timeline =
      timeline_html(dir, "timeline.json",
                    streamed ? "Timeline: the first ops, one track per stream"
                             : "Timeline: " + json_text(s, "pipeline/schedule") + ", first step");
  if (!timeline.empty()) page.section("Timeline", timeline);
  page.section("Epochs", csv_html(dir, "epochs.csv"));
  page.section("Configuration", config_html(dir));
  page.section("Files", files_html(dir));
  return page;
}

}  // namespace trainsim
