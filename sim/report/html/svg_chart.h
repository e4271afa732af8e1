#pragma once
// The figures of report.html, drawn as inline SVG: no plotting library and no script, so the
// page renders the same in any browser and in a headless one. Every mark has a <title>, which
// a browser shows on hover (the exact value). Colours come from one palette in order of first
// appearance, so a series keeps its colour within a figure.
#include <functional>
#include <string>
#include <vector>

namespace trainsim {

/// How an axis or a bar writes its values (readable_seconds, readable_energy, ...).
using ValueFormat = std::function<std::string(double)>;

struct ChartSeries {
  std::string name;
  std::vector<double> x, y;  ///< NaN y values are gaps
};

/// Lines with markers over a shared x axis (epochs, time).
std::string svg_line_chart(const std::string& title, const std::string& x_label,
                           const std::string& y_label, const std::vector<ChartSeries>& series,
                           const ValueFormat& y_format);

/// Horizontal bars, one per row, each stacked from its parts (`part_names` name the parts
/// and colour them; one part: plain bars). The total is written at the bar's end.
struct BarRow {
  std::string label;
  std::vector<double> parts;
};
std::string svg_bar_chart(const std::string& title, const std::vector<std::string>& part_names,
                          const std::vector<BarRow>& rows, const ValueFormat& format);

/// Tracks of slices over time (microseconds): a window of a timeline.
struct GanttSlice {
  int track = 0;
  double start_us = 0, duration_us = 0;
  std::string label;     ///< the slice's hover text
  std::string category;  ///< coloured alike (an op's role, a device's pass)
};
std::string svg_gantt(const std::string& title, const std::vector<std::string>& tracks,
                      const std::vector<GanttSlice>& slices);

/// Points on two axes (logarithmic when asked): a sweep's design points. Highlighted points
/// (a Pareto front) are drawn larger, joined in x order.
struct ScatterPoint {
  double x = 0, y = 0;
  std::string label;
  bool highlight = false;
};
std::string svg_scatter(const std::string& title, const std::string& x_label,
                        const std::string& y_label, const std::vector<ScatterPoint>& points,
                        bool log_x, bool log_y, const ValueFormat& x_format,
                        const ValueFormat& y_format);

}  // namespace trainsim
