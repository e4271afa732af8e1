#include "sim/report/html/readable.h"

#include <cmath>
#include <cstdio>

#include "sim/core/format.h"

namespace trainsim {

namespace {

std::string three_digits(double v) {
  const double a = std::fabs(v);
  // Three significant digits without an exponent for the 1-999 range the prefixes leave.
  return fmt(a >= 100 ? "%.0f" : a >= 10 ? "%.1f" : "%.2f", v);
}

// `v` scaled by the largest step of `steps` (ascending factors) that leaves it >= 1.
std::string with_prefix(double v, const double* factors, const char* const* names, int n) {
  if (!std::isfinite(v)) return "";
  int k = 0;
  for (int i = 0; i < n; ++i)
    if (std::fabs(v) >= factors[i]) k = i;
  return three_digits(v / factors[k]) + " " + names[k];
}

}  // namespace

std::string readable_energy(double value, const std::string& unit) {
  if (!std::isfinite(value)) return "";
  if (unit == "pJ" || unit == "J") {
    const double pj = unit == "J" ? value * 1e12 : value;
    static const double f[] = {1, 1e3, 1e6, 1e9, 1e12, 1e15};
    static const char* const n[] = {"pJ", "nJ", "uJ", "mJ", "J", "kJ"};
    return with_prefix(pj, f, n, 6);
  }
  // Normalized tables count in multiples of one MAC's energy: no physical prefix applies.
  return readable_count(value) + " MAC-equiv";
}

std::string readable_seconds(double s) {
  if (!std::isfinite(s)) return "";
  if (s >= 1000) {
    char buf[48];
    const double m = s / 60;
    if (m < 120)
      std::snprintf(buf, sizeof buf, "%.1f min", m);
    else
      std::snprintf(buf, sizeof buf, "%.2f h", m / 60);
    return buf;
  }
  static const double f[] = {1e-9, 1e-6, 1e-3, 1};
  static const char* const n[] = {"ns", "us", "ms", "s"};
  if (s == 0) return "0 s";
  return with_prefix(s, f, n, 4);
}

std::string readable_bytes(double b) {
  static const double f[] = {1, 1e3, 1e6, 1e9, 1e12, 1e15};
  static const char* const n[] = {"B", "kB", "MB", "GB", "TB", "PB"};
  return with_prefix(b, f, n, 6);
}

std::string readable_count(double c) {
  if (!std::isfinite(c)) return "";
  if (std::fabs(c) < 1000) {
    return fmt(c == std::floor(c) ? "%.0f" : "%.3g", c);
  }
  static const double f[] = {1e3, 1e6, 1e9, 1e12, 1e15};
  static const char* const n[] = {"k", "M", "G", "T", "P"};
  std::string s = with_prefix(c, f, n, 5);
  s.erase(s.find(' '), 1);  // "21.8M": a count's prefix sits on the number
  return s;
}

std::string readable_percent(double f, int decimals) {
  if (!std::isfinite(f)) return "";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.*f%%", decimals, 100 * f);
  return buf;
}

std::string readable_number(double v) {
  if (!std::isfinite(v)) return "";
  return fmt("%.3g", v);
}

}  // namespace trainsim
