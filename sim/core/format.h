#pragma once
// printf-style formatting for the CSV and text reports and messages.
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace trainsim {

/// printf(format, v) of one double. "%g", "%.Ng" and "%.Nf", the formats of every table and
/// page, take a path of their own (format_general's); any other format is printf's.
std::string fmt(const char* format, double v);

/// printf's "%.{precision}g" of v (precision 0 to 17) into buf, at least 32 chars; returns the
/// length. Written by std::to_chars, which the standard defines to give printf's characters
/// in the C locale: glibc's printf works out every digit in multi-precision arithmetic, about a
/// tenth of a sweep point's time when its tables and page print a few thousand numbers.
std::size_t format_general(double v, int precision, char* buf);

/// printf into a string of any length.
template <class... Args>
std::string sformat(const char* format, Args... args) {
  const int n = std::snprintf(nullptr, 0, format, args...);
  if (n <= 0) return {};
  std::vector<char> buf(static_cast<std::size_t>(n) + 1);
  std::snprintf(buf.data(), buf.size(), format, args...);
  return std::string(buf.data(), static_cast<std::size_t>(n));
}

/// Digits grouped by thousands: 14719818 -> "14,719,818" (parameter counts in messages).
inline std::string grouped(std::int64_t n) {
  std::string digits = std::to_string(n), out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && digits[i - 1] != '-' && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

}  // namespace trainsim
