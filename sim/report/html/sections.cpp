#include "sim/report/html/sections.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "sim/core/format.h"
#include "sim/report/html/readable.h"
#include "sim/report/html/svg_chart.h"
#include "sim/report/html/trace_events.h"

namespace trainsim {

namespace {

// A timeline window: enough slices to see a few steps' overlap, few enough for the page to
// stay small (the trace file beside it holds the rest of the window).
constexpr std::size_t kGanttSlices = 600;

std::vector<double> column(const CsvData& d, const std::string& name) {
  std::vector<double> v;
  for (std::size_t r = 0; r < d.rows.size(); ++r) v.push_back(d.number(r, name));
  return v;
}

bool any_finite(const std::vector<double>& v) {
  return std::any_of(v.begin(), v.end(), [](double x) { return std::isfinite(x); });
}

}  // namespace

KeyFigure figure(const std::string& key, const std::string& label, const std::string& shown) {
  KeyFigure f;
  f.key = key, f.label = label, f.shown = shown;
  return f;
}

KeyFigure figure(const std::string& key, const std::string& label, const std::string& shown,
                 double value) {
  KeyFigure f = figure(key, label, shown);
  f.value = value, f.has_value = std::isfinite(value);
  return f;
}

std::string figures_table(const std::vector<KeyFigure>& figures) {
  std::string out = "<table class=\"pairs\" id=\"figures\">";
  for (const KeyFigure& f : figures) {
    if (f.shown.empty()) continue;
    out += "<tr><th>" + html_escape(f.label) + "</th><td data-key=\"" + html_escape(f.key) + "\"";
    if (f.has_value) {
      out += " data-v=\"" + fmt("%.17g", f.value) + "\"";
    }
    out += ">" + html_escape(f.shown) + "</td></tr>";
  }
  return out + "</table>";
}

std::string curves_html(const CsvData& epochs) {
  const std::vector<double> x = column(epochs, "epoch");
  const std::vector<double> tl = column(epochs, "train_loss"), vl = column(epochs, "test_loss");
  const std::vector<double> ta = column(epochs, "train_accuracy"),
                            va = column(epochs, "test_accuracy");
  std::string out;
  if (any_finite(tl) || any_finite(vl))
    out += svg_line_chart("Loss per epoch", "epoch", "loss", {{"train", x, tl}, {"test", x, vl}},
                          readable_number);
  if (any_finite(ta) || any_finite(va))
    out += svg_line_chart("Accuracy per epoch", "epoch", "accuracy",
                          {{"train", x, ta}, {"test", x, va}},
                          [](double v) { return readable_percent(v); });
  return out;
}

std::string timeline_html(const ResultsDir& dir, const std::string& file,
                          const std::string& title) {
  if (!dir.has(file)) return "";
  TraceSlices trace = read_trace_slices(dir.text(file), dir.path() + "/" + file);
  if (!trace.json) return html_para(file + " is not JSON; it is not drawn here.");
  if (!trace.events) return html_para(file + " holds no trace events.");
  const std::vector<std::string>& tracks = trace.tracks;
  std::vector<GanttSlice>& slices = trace.slices;
  // Slices in time order (tracks in the order the trace names them).
  std::stable_sort(slices.begin(), slices.end(), [](const GanttSlice& a, const GanttSlice& b) {
    return a.start_us < b.start_us;
  });
  const std::size_t all = slices.size();
  if (slices.size() > kGanttSlices) slices.resize(kGanttSlices);
  std::string note = "The first " + std::to_string(slices.size()) + " of the " +
                     std::to_string(all) + " slices in ";
  return svg_gantt(title, tracks, slices) + "<p class=\"note\">" + html_escape(note) +
         "<a href=\"" + html_escape(file) + "\">" + html_escape(file) +
         "</a> (a Chrome trace: open it in Perfetto or chrome://tracing; hover a slice here "
         "for its name and times).</p>";
}

std::string config_html(const ResultsDir& dir) {
  const std::string text = dir.text("config.resolved.yaml");
  if (text.empty()) return "";
  return "<pre>" + html_escape(text) + "</pre>";
}

std::string files_html(const ResultsDir& dir) {
  std::string out = "<ul>";
  for (const std::string& f : dir.files())
    out += "<li><a href=\"" + html_escape(f) + "\">" + html_escape(f) + "</a></li>";
  return out + "</ul>";
}

std::string csv_html(const ResultsDir& dir, const std::string& file, std::size_t limit) {
  const CsvData& d = dir.csv(file);
  if (d.empty()) return "";
  HtmlTable t(d.head);
  for (const auto& r : d.rows) t.row(std::vector<HtmlCell>(r.begin(), r.end()));
  t.limit(limit);
  return "<p><a href=\"" + html_escape(file) + "\">" + html_escape(file) + "</a></p>" + t.html();
}

std::string device_time_html(const ResultsDir& dir, const std::string& title,
                             const std::string& name_column,
                             const std::vector<std::pair<std::string, std::string>>& parts) {
  const CsvData& d = dir.csv("devices.csv");
  if (d.empty()) return "";
  std::vector<std::string> names;
  for (const auto& p : parts) names.push_back(p.second);
  std::vector<BarRow> bars;
  for (std::size_t r = 0; r < d.rows.size(); ++r) {
    BarRow row{"dev" + d.cell(r, "device") + " " + d.cell(r, name_column), {}};
    for (const auto& p : parts) row.parts.push_back(d.number(r, p.first));
    bars.push_back(row);
  }
  return svg_bar_chart(title, names, bars, readable_seconds) + csv_html(dir, "devices.csv");
}

}  // namespace trainsim
