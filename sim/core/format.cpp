#include "sim/core/format.h"

#include <charconv>

namespace trainsim {

namespace {

// printf's "%.{precision}{g or f}" of v through std::to_chars, which the standard defines to
// write printf's characters in the C locale (NaN and infinities included); nothing when the
// result does not fit in [buf, buf + size).
std::size_t to_chars_as_printf(double v, int precision, std::chars_format kind, char* buf,
                               std::size_t size) {
  const std::to_chars_result r = std::to_chars(buf, buf + size, v, kind, precision);
  return r.ec == std::errc() ? static_cast<std::size_t>(r.ptr - buf) : 0;
}

// The precision and conversion of a format that is exactly "%g" (6), "%.Ng" or "%.Nf" (N up to
// 17); false for any other format (flags, a width, another conversion, text around it).
bool plain_conversion(const char* f, int& precision, std::chars_format& kind) {
  if (f[0] != '%') return false;
  if (f[1] == 'g' && f[2] == '\0') {
    precision = 6, kind = std::chars_format::general;
    return true;
  }
  if (f[1] != '.') return false;
  int n = 0, digits = 0;
  const char* c = f + 2;
  for (; *c >= '0' && *c <= '9' && digits < 2; ++c, ++digits) n = n * 10 + (*c - '0');
  if ((c[0] != 'g' && c[0] != 'f') || c[1] != '\0' || n > 17) return false;
  precision = n;  // "%.g" is precision 0, as printf reads it
  kind = c[0] == 'g' ? std::chars_format::general : std::chars_format::fixed;
  return true;
}

}  // namespace

std::size_t format_general(double v, int precision, char* buf) {
  // At most 17 significant digits fit in 32 chars ("-1.2345678901234567e-308" is 24).
  if (precision <= 17)
    if (std::size_t n = to_chars_as_printf(v, precision, std::chars_format::general, buf, 32))
      return n;
  return static_cast<std::size_t>(std::snprintf(buf, 32, "%.*g", precision, v));
}

std::string fmt(const char* format, double v) {
  int precision = 0;
  std::chars_format kind{};
  if (plain_conversion(format, precision, kind)) {
    char buf[64];  // a fixed layout of a huge number does not fit: printf's, below
    if (std::size_t n = to_chars_as_printf(v, precision, kind, buf, sizeof buf))
      return std::string(buf, n);
  }
  return sformat(format, v);
}

}  // namespace trainsim
