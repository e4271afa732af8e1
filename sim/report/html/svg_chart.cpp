#include "sim/report/html/svg_chart.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "sim/core/format.h"
#include "sim/report/html/html_page.h"
#include "sim/report/html/readable.h"

namespace trainsim {

namespace {

constexpr double kWidth = 760;
const char* const kPalette[] = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
                                "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};
constexpr int kColours = 10;

std::string num(double v) {
  return fmt("%.1f", v);
}

// Colours by name, in order of first appearance.
class Palette {
 public:
  const char* operator()(const std::string& name) {
    auto it = index_.find(name);
    if (it == index_.end()) it = index_.emplace(name, static_cast<int>(index_.size())).first;
    return kPalette[it->second % kColours];
  }

 private:
  std::map<std::string, int> index_;
};

std::string open_svg(double height, const std::string& title) {
  return "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + num(kWidth) + "\" height=\"" +
         num(height) + "\" viewBox=\"0 0 " + num(kWidth) + " " + num(height) +
         "\" font-family=\"sans-serif\" font-size=\"11\" role=\"img\"><title>" +
         html_escape(title) + "</title><text x=\"" + num(kWidth / 2) +
         "\" y=\"16\" text-anchor=\"middle\" font-size=\"13\" font-weight=\"bold\">" +
         html_escape(title) + "</text>";
}

std::string text(double x, double y, const std::string& s, const char* anchor = "start",
                 const char* extra = "") {
  return "<text x=\"" + num(x) + "\" y=\"" + num(y) + "\" text-anchor=\"" + anchor + "\"" + extra +
         ">" + html_escape(s) + "</text>";
}

std::string line(double x1, double y1, double x2, double y2, const char* stroke = "#ccc") {
  return "<line x1=\"" + num(x1) + "\" y1=\"" + num(y1) + "\" x2=\"" + num(x2) + "\" y2=\"" +
         num(y2) + "\" stroke=\"" + stroke + "\"/>";
}

// About `n` round tick values (1, 2 or 5 times a power of ten) covering [lo, hi].
std::vector<double> nice_ticks(double lo, double hi, int n, double min_step = 0) {
  if (!(hi > lo)) return {lo};
  const double raw = (hi - lo) / n;
  const double mag = std::pow(10, std::floor(std::log10(raw)));
  double step = mag;
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (raw <= m * mag) {
      step = m * mag;
      break;
    }
  step = std::max(step, min_step);
  std::vector<double> t;
  for (double v = std::ceil(lo / step - 1e-9) * step; v <= hi + step * 1e-9; v += step)
    t.push_back(std::fabs(v) < step * 1e-9 ? 0 : v);
  return t;
}

// A linear or logarithmic map from data to pixels.
struct Axis {
  double lo = 0, hi = 1, p0 = 0, p1 = 1;
  bool log = false;
  double min_step = 0;  ///< 1 for whole numbers (epochs)
  double operator()(double v) const {
    const double a = log ? std::log10(lo) : lo, b = log ? std::log10(hi) : hi;
    const double t = ((log ? std::log10(v) : v) - a) / (b - a);
    return p0 + t * (p1 - p0);
  }
  std::vector<double> ticks() const {
    if (!log) return nice_ticks(lo, hi, 5, min_step);
    std::vector<double> t;
    for (double d = std::pow(10, std::ceil(std::log10(lo) - 1e-9)); d <= hi * (1 + 1e-9); d *= 10)
      t.push_back(d);
    if (t.size() >= 3) return t;
    // Less than three decades: 1-2-5 steps, then evenly spaced round values.
    t.clear();
    for (double d = std::pow(10, std::floor(std::log10(lo))); d <= hi; d *= 10)
      for (double m : {1.0, 2.0, 5.0})
        if (d * m >= lo && d * m <= hi) t.push_back(d * m);
    if (t.size() >= 3) return t;
    return nice_ticks(lo, hi, 4);
  }
};

// The range of `v` (finite, and positive for a log axis), padded by `pad` of its span.
Axis range_of(const std::vector<double>& v, bool log, double pad) {
  Axis a;
  a.log = log;
  double lo = INFINITY, hi = -INFINITY;
  for (double x : v)
    if (std::isfinite(x) && (!log || x > 0)) lo = std::min(lo, x), hi = std::max(hi, x);
  if (!std::isfinite(lo)) lo = log ? 1 : 0, hi = log ? 10 : 1;
  if (log) {
    if (hi <= lo) lo /= 2, hi *= 2;
    a.lo = lo / std::pow(hi / lo, pad), a.hi = hi * std::pow(hi / lo, pad);
  } else {
    if (hi <= lo) lo -= 0.5 * (std::fabs(lo) + 1), hi += 0.5 * (std::fabs(hi) + 1);
    a.lo = lo - pad * (hi - lo), a.hi = hi + pad * (hi - lo);
  }
  return a;
}

std::string legend(const std::vector<std::string>& names, Palette& colour, double x, double y) {
  std::string out;
  for (const std::string& n : names) {
    out += "<rect x=\"" + num(x) + "\" y=\"" + num(y - 9) +
           "\" width=\"10\" height=\"10\" fill=\"" + colour(n) + "\"/>" + text(x + 14, y, n);
    x += 24 + 6.5 * static_cast<double>(n.size());
  }
  return out;
}

// Axes with grid lines and tick labels; the plot area is [x.p0, x.p1] x [y.p1, y.p0].
std::string axes(const Axis& x, const Axis& y, const ValueFormat& xf, const ValueFormat& yf,
                 const std::string& x_label, const std::string& y_label) {
  std::string out;
  for (double t : y.ticks()) {
    if (t < y.lo || t > y.hi) continue;
    out += line(x.p0, y(t), x.p1, y(t), "#eee") + text(x.p0 - 4, y(t) + 4, yf(t), "end");
  }
  for (double t : x.ticks()) {
    if (t < x.lo || t > x.hi) continue;
    out += line(x(t), y.p0, x(t), y.p0 + 4, "#888") + text(x(t), y.p0 + 16, xf(t), "middle");
  }
  out += line(x.p0, y.p0, x.p1, y.p0, "#888") + line(x.p0, y.p0, x.p0, y.p1, "#888");
  out += text((x.p0 + x.p1) / 2, y.p0 + 32, x_label, "middle");
  out += "<text transform=\"translate(12," + num((y.p0 + y.p1) / 2) +
         ") rotate(-90)\" text-anchor=\"middle\">" + html_escape(y_label) + "</text>";
  return out;
}

std::string readable_us(double us) {
  return readable_seconds(us * 1e-6);
}

std::string plain(double v) {
  return fmt("%g", v);
}

}  // namespace

std::string svg_line_chart(const std::string& title, const std::string& x_label,
                           const std::string& y_label, const std::vector<ChartSeries>& series,
                           const ValueFormat& y_format) {
  const double height = 260;
  std::vector<double> xs, ys;
  for (const ChartSeries& s : series) {
    xs.insert(xs.end(), s.x.begin(), s.x.end());
    ys.insert(ys.end(), s.y.begin(), s.y.end());
  }
  Axis x = range_of(xs, false, 0.02), y = range_of(ys, false, 0.08);
  x.p0 = 80, x.p1 = kWidth - 20, y.p0 = height - 45, y.p1 = 38;
  // Whole-number x values (epochs) get whole-number ticks.
  if (std::all_of(xs.begin(), xs.end(),
                  [](double v) { return !std::isfinite(v) || v == std::floor(v); }))
    x.min_step = 1;
  Palette colour;
  std::string out = open_svg(height, title) + axes(x, y, plain, y_format, x_label, y_label);
  std::vector<std::string> names;
  for (const ChartSeries& s : series) {
    names.push_back(s.name);
    const char* c = colour(s.name);
    std::string path, marks;
    bool pen = false;
    for (std::size_t i = 0; i < s.x.size() && i < s.y.size(); ++i) {
      if (!std::isfinite(s.y[i]) || !std::isfinite(s.x[i])) {
        pen = false;
        continue;
      }
      path += std::string(pen ? " L" : " M") + num(x(s.x[i])) + " " + num(y(s.y[i]));
      pen = true;
      marks += "<circle cx=\"" + num(x(s.x[i])) + "\" cy=\"" + num(y(s.y[i])) +
               "\" r=\"3\" fill=\"" + c + "\"><title>" +
               html_escape(s.name + " at " + plain(s.x[i]) + ": " + y_format(s.y[i])) +
               "</title></circle>";
    }
    if (!path.empty())
      out += "<path d=\"" + path + "\" fill=\"none\" stroke=\"" + c + "\" stroke-width=\"1.5\"/>";
    out += marks;
  }
  out += legend(names, colour, x.p0 + 6, 32);
  return out + "</svg>";
}

std::string svg_bar_chart(const std::string& title, const std::vector<std::string>& part_names,
                          const std::vector<BarRow>& rows, const ValueFormat& format) {
  const bool stacked = part_names.size() > 1;
  const double top = stacked ? 44 : 28, row_h = 20;
  const double height = top + row_h * static_cast<double>(rows.size()) + 10;
  std::size_t longest = 4;
  for (const BarRow& r : rows) longest = std::max(longest, r.label.size());
  const double x0 = std::min(260.0, 12 + 6.3 * static_cast<double>(longest));
  const double x1 = kWidth - 90;
  double most = 0;
  for (const BarRow& r : rows) {
    double sum = 0;
    for (double p : r.parts) sum += std::max(0.0, p);
    most = std::max(most, sum);
  }
  if (!(most > 0)) most = 1;
  Palette colour;
  std::string out = open_svg(height, title);
  if (stacked) out += legend(part_names, colour, x0, 34);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const BarRow& r = rows[i];
    const double y = top + row_h * static_cast<double>(i);
    out += text(x0 - 6, y + 13, r.label, "end");
    double at = x0, sum = 0;
    for (std::size_t k = 0; k < r.parts.size(); ++k) {
      const double v = std::max(0.0, r.parts[k]);
      sum += v;
      if (v <= 0) continue;
      const double w = (x1 - x0) * v / most;
      const std::string& part = k < part_names.size() ? part_names[k] : r.label;
      out += "<rect x=\"" + num(at) + "\" y=\"" + num(y + 3) + "\" width=\"" +
             num(std::max(w, 0.5)) + "\" height=\"" + num(row_h - 6) + "\" fill=\"" +
             colour(stacked ? part : std::string("bar")) + "\"><title>" +
             html_escape(r.label + (stacked ? " " + part : std::string()) + ": " + format(v)) +
             "</title></rect>";
      at += w;
    }
    out += text(at + 4, y + 13, format(sum));
  }
  return out + "</svg>";
}

std::string svg_gantt(const std::string& title, const std::vector<std::string>& tracks,
                      const std::vector<GanttSlice>& slices) {
  const double row_h = 22, top = 44;
  const double height = top + row_h * static_cast<double>(tracks.size()) + 40;
  std::size_t longest = 4;
  for (const std::string& t : tracks) longest = std::max(longest, t.size());
  Axis x;
  double lo = INFINITY, hi = -INFINITY;
  for (const GanttSlice& s : slices)
    lo = std::min(lo, s.start_us), hi = std::max(hi, s.start_us + s.duration_us);
  if (!std::isfinite(lo)) lo = 0, hi = 1;
  if (hi <= lo) hi = lo + 1;
  x.lo = lo, x.hi = hi;
  x.p0 = std::min(280.0, 12 + 6.3 * static_cast<double>(longest)), x.p1 = kWidth - 20;
  Palette colour;
  std::vector<std::string> categories;
  for (const GanttSlice& s : slices)
    if (std::find(categories.begin(), categories.end(), s.category) == categories.end())
      categories.push_back(s.category);
  std::string out = open_svg(height, title);
  if (categories.size() <= 12) out += legend(categories, colour, x.p0, 34);
  const double bottom = top + row_h * static_cast<double>(tracks.size());
  for (std::size_t t = 0; t < tracks.size(); ++t)
    out += text(x.p0 - 6, top + row_h * static_cast<double>(t) + 15, tracks[t], "end");
  for (const GanttSlice& s : slices) {
    if (s.track < 0 || static_cast<std::size_t>(s.track) >= tracks.size()) continue;
    const double y = top + row_h * s.track;
    const double a = x(s.start_us), w = std::max(0.6, x(s.start_us + s.duration_us) - a);
    out +=
        "<rect x=\"" + num(a) + "\" y=\"" + num(y + 3) + "\" width=\"" + num(w) + "\" height=\"" +
        num(row_h - 6) + "\" fill=\"" + colour(s.category) + "\"><title>" +
        html_escape(s.label + ": " + readable_us(s.start_us) + " + " + readable_us(s.duration_us)) +
        "</title></rect>";
  }
  for (double t : x.ticks()) {
    if (t < x.lo || t > x.hi) continue;
    out += line(x(t), bottom, x(t), bottom + 4, "#888") +
           text(x(t), bottom + 16, readable_us(t), "middle");
  }
  out += line(x.p0, bottom, x.p1, bottom, "#888");
  return out + "</svg>";
}

std::string svg_scatter(const std::string& title, const std::string& x_label,
                        const std::string& y_label, const std::vector<ScatterPoint>& points,
                        bool log_x, bool log_y, const ValueFormat& x_format,
                        const ValueFormat& y_format) {
  const double height = 340;
  std::vector<double> xs, ys;
  for (const ScatterPoint& p : points) xs.push_back(p.x), ys.push_back(p.y);
  Axis x = range_of(xs, log_x, 0.04), y = range_of(ys, log_y, 0.06);
  x.p0 = 90, x.p1 = kWidth - 20, y.p0 = height - 45, y.p1 = 30;
  std::string out = open_svg(height, title) + axes(x, y, x_format, y_format, x_label, y_label);
  std::vector<const ScatterPoint*> front;
  for (const ScatterPoint& p : points) {
    if (!std::isfinite(p.x) || !std::isfinite(p.y) || (log_x && p.x <= 0) || (log_y && p.y <= 0))
      continue;
    if (p.highlight) front.push_back(&p);
    out += "<circle cx=\"" + num(x(p.x)) + "\" cy=\"" + num(y(p.y)) + "\" r=\"" +
           (p.highlight ? "5" : "3.5") + "\" fill=\"" + (p.highlight ? kPalette[2] : kPalette[0]) +
           "\" fill-opacity=\"0.8\"><title>" +
           html_escape(p.label + ": " + x_format(p.x) + ", " + y_format(p.y)) + "</title></circle>";
  }
  std::sort(front.begin(), front.end(),
            [](const ScatterPoint* a, const ScatterPoint* b) { return a->x < b->x; });
  if (front.size() > 1) {
    std::string path;
    for (const ScatterPoint* p : front)
      path += std::string(path.empty() ? "M" : " L") + num(x(p->x)) + " " + num(y(p->y));
    out += "<path d=\"" + path + "\" fill=\"none\" stroke=\"" + kPalette[2] +
           "\" stroke-dasharray=\"4 3\"/>";
  }
  return out + "</svg>";
}

}  // namespace trainsim
