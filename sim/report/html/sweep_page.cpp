// report.html of `trainsim sweep`: every design point, the Pareto front of time and energy,
// and the points that failed, each with its error.
#include <cmath>
#include <filesystem>

#include "sim/report/html/readable.h"
#include "sim/report/html/report_pages.h"
#include "sim/report/html/sections.h"
#include "sim/report/html/svg_chart.h"

namespace trainsim {

HtmlPage sweep_page(const ResultsDir& dir) {
  const CsvData& c = dir.csv("sweep.csv");
  // The swept keys: the columns between id and status.
  std::vector<std::string> keys;
  for (int k = 1; k < c.column("status"); ++k) keys.push_back(c.head[static_cast<std::size_t>(k)]);
  std::vector<std::string> head = {"point"};
  head.insert(head.end(), keys.begin(), keys.end());
  for (const char* h : {"status", "time", "energy", "DRAM", "utilization", "speedup", "Pareto"})
    head.push_back(h);
  HtmlTable t(head);
  std::vector<ScatterPoint> points;
  HtmlTable failed({"point", "status", "error"});
  std::string unit;
  std::size_t unlinked = 0;  // done points without a page of their own
  for (std::size_t r = 0; r < c.rows.size(); ++r) {
    const std::string id = c.cell(r, "id");
    const std::string report = "points/" + id + "/run/report.html";
    const bool linked = dir.has(report);
    std::vector<HtmlCell> row = {linked ? HtmlCell(id, report) : HtmlCell(id)};
    unlinked += !linked && c.cell(r, "status") == "done";
    std::string label = id;
    for (const std::string& k : keys) {
      row.emplace_back(c.cell(r, k));
      label += " " + k + "=" + c.cell(r, k);
    }
    const double sec = c.number(r, "seconds"), energy = c.number(r, "energy");
    if (unit.empty()) unit = c.cell(r, "energy_unit");
    const bool front = c.cell(r, "pareto") == "1";
    const double dram = c.number(r, "dram_bytes"), util = c.number(r, "utilization"),
                 speedup = c.number(r, "speedup");
    row.emplace_back(c.cell(r, "status"));
    row.push_back(HtmlCell::number(readable_seconds(sec), sec));
    row.push_back(HtmlCell::number(readable_energy(energy, c.cell(r, "energy_unit")), energy));
    row.push_back(HtmlCell::number(readable_bytes(dram), dram));
    row.push_back(HtmlCell::number(readable_percent(util), util));
    row.push_back(HtmlCell::number(readable_number(speedup), speedup));
    row.emplace_back(front ? "yes" : "");
    t.row(row);
    if (c.cell(r, "status") == "done")
      points.push_back({sec, energy, label, front});
    else
      failed.row({id, c.cell(r, "status"), c.cell(r, "error")});
  }
  // sweep.json names the sweep file the points came from.
  std::string name;
  try {
    name = std::filesystem::path(
               json_text(nlohmann::ordered_json::parse(dir.text("sweep.json")), "sweep"))
               .stem()
               .string();
  } catch (const nlohmann::ordered_json::exception&) {
    name = "(sweep.json unreadable)";
  }
  HtmlPage page("trainsim sweep: " + name, std::to_string(c.rows.size()) + " design point(s), " +
                                               std::to_string(points.size()) + " done, " +
                                               std::to_string(failed.rows()) + " failed");
  page.section("Pareto front",
               svg_scatter("Training time against energy (the Pareto front in red)",
                           "simulated training time", "energy", points, true, true,
                           readable_seconds, [&](double v) { return readable_energy(v, unit); }));
  page.section("Failed points",
               failed.rows() ? failed.html() : html_para("None: every point finished."));
  t.limit(1000);
  // By default a sweep writes the pages of its front's points and its baseline only
  // (`sweep --point-reports`): say how to get any other point's.
  page.section("Points",
               t.html() + (unlinked ? html_para(std::to_string(unlinked) +
                                                " finished point(s) have no page of their own: "
                                                "`trainsim report DIR/points/<id>/run` writes "
                                                "one (`sweep --point-reports all` writes every "
                                                "point's as it finishes).")
                                    : std::string()));
  page.section("Files", files_html(dir));
  return page;
}

}  // namespace trainsim
