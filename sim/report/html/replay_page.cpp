// report.html of `trainsim replay -o DIR`: Chakra traces run on a system (docs/interop.md,
// "Running a trace"): the makespan, each device's busy and idle time and its energy.
#include <cmath>

#include "sim/report/html/readable.h"
#include "sim/report/html/report_pages.h"
#include "sim/report/html/sections.h"
#include "sim/report/html/svg_chart.h"

namespace trainsim {

namespace {

std::vector<KeyFigure> key_figures(const nlohmann::ordered_json& s) {
  std::vector<KeyFigure> f;
  f.push_back(figure("traces", "traces", json_text(s, "experiment")));
  f.push_back(figure("system", "system",
                     json_text(s, "system/name") + " (" + json_text(s, "system/topology") + ")"));
  f.push_back(figure("timing", "node timing",
                     json_text(s, "timing") == "trace" ? "the durations the traces recorded"
                                                       : "priced by each device's model"));
  const double sec = json_number(s, "totals/makespan_seconds");
  f.push_back(figure("makespan_seconds", "makespan", readable_seconds(sec), sec));
  for (const char* key : {"nodes", "dependencies", "transfers"}) {
    const double v = json_number(s, std::string("totals/") + key);
    f.push_back(figure(key, key, readable_count(v), v));
  }
  // Energies the traces' recorded durations do not carry are null: no figure for them.
  for (const auto& [key, label] :
       std::vector<std::pair<std::string, std::string>>{{"compute_energy_j", "compute energy"},
                                                        {"memory_energy_j", "memory energy"},
                                                        {"idle_energy_j", "idle energy"},
                                                        {"comm_energy_j", "link energy"}}) {
    const double j = json_number(s, "totals/" + key);
    if (std::isfinite(j)) f.push_back(figure(key, label, readable_energy(j, "J"), j));
  }
  return f;
}

}  // namespace

HtmlPage replay_page(const ResultsDir& dir) {
  const nlohmann::ordered_json& s = dir.stats();
  HtmlPage page("trainsim replay: " + json_text(s, "experiment"),
                "replay | " + json_text(s, "system/name") + " | timing " + json_text(s, "timing") +
                    " | trainsim " + json_text(s, "trainsim_version"));
  page.section("Summary", figures_table(key_figures(s)));
  page.section("Devices", device_time_html(dir, "Time per device", "name",
                                           {{"compute_seconds", "compute"},
                                            {"memory_seconds", "memory"},
                                            {"idle_seconds", "idle"}}));
  page.section("Files", files_html(dir));
  return page;
}

}  // namespace trainsim
