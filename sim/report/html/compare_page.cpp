// report.html of `trainsim compare`: the variants side by side, linked to their own reports.
#include <cmath>

#include "sim/report/html/readable.h"
#include "sim/report/html/report_pages.h"
#include "sim/report/html/sections.h"
#include "sim/report/html/svg_chart.h"

namespace trainsim {

namespace {

// The variants' summary: compare.csv's figures in readable units, each variant linked to its
// own report.
std::string variants_html(const ResultsDir& dir, const CsvData& c) {
  const bool joules = c.column("energy_j") >= 0;
  HtmlTable t({"variant", "time", "energy", "test accuracy", "speedup", "energy (rel.)"});
  for (std::size_t r = 0; r < c.rows.size(); ++r) {
    const std::string v = c.cell(r, "variant");
    const ResultsDir sub(dir.path() + "/" + v);
    const double energy = joules ? c.number(r, "energy_j") : c.number(r, "energy_pj");
    const std::string unit = joules ? "J" : c.cell(r, "energy_unit");
    const double rel =
        joules ? 1 / c.number(r, "energy_efficiency_rel") : c.number(r, "energy_rel");
    const double sec = c.number(r, "seconds"), speedup = c.number(r, "speedup");
    t.row({sub.has("report.html") ? HtmlCell(v, v + "/report.html") : HtmlCell(v),
           HtmlCell::number(readable_seconds(sec), sec),
           HtmlCell::number(readable_energy(energy, unit), energy),
           readable_percent(c.number(r, "test_accuracy"), 2), readable_number(speedup) + "x",
           readable_number(rel) + "x"});
  }
  return t.html();
}

std::string relative_bars(const CsvData& c) {
  const bool joules = c.column("energy_j") >= 0;
  std::vector<BarRow> speed, energy;
  for (std::size_t r = 0; r < c.rows.size(); ++r) {
    const std::string v = c.cell(r, "variant");
    speed.push_back({v, {c.number(r, "speedup")}});
    energy.push_back(
        {v, {joules ? 1 / c.number(r, "energy_efficiency_rel") : c.number(r, "energy_rel")}});
  }
  const auto times = [](double x) { return readable_number(x) + "x"; };
  return svg_bar_chart("Speedup over the first variant", {"speedup"}, speed, times) +
         svg_bar_chart("Energy relative to the first variant", {"energy"}, energy, times);
}

// Test accuracy per epoch of every variant, from their epochs.csv.
std::string accuracy_curves(const ResultsDir& dir, const CsvData& c) {
  std::vector<ChartSeries> series;
  bool any = false;
  for (std::size_t r = 0; r < c.rows.size(); ++r) {
    const std::string v = c.cell(r, "variant");
    const CsvData e = ResultsDir(dir.path() + "/" + v).csv("epochs.csv");
    ChartSeries s{v, {}, {}};
    for (std::size_t k = 0; k < e.rows.size(); ++k) {
      s.x.push_back(e.number(k, "epoch"));
      s.y.push_back(e.number(k, "test_accuracy"));
      any = any || std::isfinite(s.y.back());
    }
    series.push_back(s);
  }
  if (!any) return "";
  bool same = true;
  for (const ChartSeries& s : series) same = same && s.y == series.front().y;
  return svg_line_chart("Test accuracy per epoch", "epoch", "test accuracy", series,
                        [](double v) { return readable_percent(v); }) +
         (same && series.size() > 1
              ? html_para("The variants train identically (the same numerics, seed and "
                          "technique): their lines lie on top of each other.")
              : std::string());
}

}  // namespace

HtmlPage compare_page(const ResultsDir& dir) {
  const CsvData& c = dir.csv("compare.csv");
  std::string experiment;
  if (!c.rows.empty()) {
    const ResultsDir first(dir.path() + "/" + c.cell(0, "variant"));
    experiment = json_text(first.stats(), "experiment");
  }
  HtmlPage page("trainsim compare: " + experiment,
                std::to_string(c.rows.size()) + " variant(s), the same experiment and seed");
  page.section("Variants", variants_html(dir, c) + relative_bars(c));
  const std::string curves = accuracy_curves(dir, c);
  if (!curves.empty()) page.section("Accuracy", curves);
  page.section("compare.csv", csv_html(dir, "compare.csv"));
  std::string tables;
  for (const std::string& f : dir.files())
    if (f.rfind("table_", 0) == 0) tables += csv_html(dir, f);
  if (!tables.empty()) page.section("Per-epoch tables", tables);
  page.section("Files", files_html(dir));
  return page;
}

}  // namespace trainsim
