#pragma once
// Figures as a person reads them in report.html: a unit chosen for the magnitude and always
// written (2.18e+10 pJ -> "21.8 mJ", 0.009566 s -> "9.57 ms"). The files keep full precision;
// these strings are for reading only.
#include <string>

namespace trainsim {

/// `value` in `unit` ("pJ", "J" or "normalized", as stats.json says) with a prefix that
/// keeps 1-3 digits before the point: pJ ... J, or "x MAC-equivalents" when normalized.
std::string readable_energy(double value, const std::string& unit);
/// Seconds as s, ms, us or ns (hours and minutes past 1,000 s).
std::string readable_seconds(double seconds);
/// Bytes as B, kB, MB, GB, TB (powers of 1000: DRAM traffic, not memory sizes).
std::string readable_bytes(double bytes);
/// A count with k, M, G, T, P.
std::string readable_count(double n);
/// A fraction 0..1 as a percentage with `decimals` decimals (accuracy: 2, as the terminal).
std::string readable_percent(double fraction, int decimals = 1);
/// Three significant digits, no unit ("" for NaN).
std::string readable_number(double v);

}  // namespace trainsim
