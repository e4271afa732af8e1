// sim/core/format.h: fmt() gives printf's characters for every format, its own path for "%g",
// "%.Ng" and "%.Nf" included, on random numbers over the whole range (a fixed layout of
// hundreds of digits too), the numbers where %g switches between its fixed and exponent layouts
// or rounds up a digit, and the non-finite ones.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "sim/core/format.h"

namespace trainsim {
namespace {

std::string printf_of(const char* format, double v) {
  char buf[400];  // "%.3f" of the largest double is 313 chars
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

std::vector<double> test_numbers() {
  std::vector<double> v = {0.0,
                           -0.0,
                           1.0,
                           -1.0,
                           0.5,
                           9.5,
                           99.95,
                           999999.5,
                           9999995.0,
                           1e-4,
                           9.99999e-5,
                           1e-5,
                           123456.0,
                           1234567.0,
                           0.1 + 0.2,
                           1.0 / 3.0,
                           2.5e-308,
                           std::numeric_limits<double>::max(),
                           std::numeric_limits<double>::lowest(),
                           std::numeric_limits<double>::min(),
                           std::numeric_limits<double>::denorm_min(),
                           std::numeric_limits<double>::quiet_NaN(),
                           -std::numeric_limits<double>::quiet_NaN(),
                           std::numeric_limits<double>::infinity(),
                           -std::numeric_limits<double>::infinity()};
  // Around every power of ten the layout changes and 9.99... rounds up to the next.
  for (int e = -20; e <= 20; ++e) {
    const double p = std::pow(10.0, e);
    for (double x : {p, std::nextafter(p, 0.0), std::nextafter(p, 1e300), 9.9999995 * p,
                     9.99999999999999 * p, 0.5 * p, 1.5 * p})
      v.push_back(x), v.push_back(-x);
  }
  std::mt19937_64 rng(20261130);
  std::uniform_real_distribution<double> mantissa(-10.0, 10.0);
  std::uniform_int_distribution<int> exponent(-300, 300);
  std::uniform_int_distribution<std::uint64_t> bits;
  for (int i = 0; i < 3000; ++i) v.push_back(mantissa(rng) * std::pow(10.0, exponent(rng) / 10));
  for (int i = 0; i < 2000; ++i) {  // any bit pattern: subnormals, NaNs with payloads
    const std::uint64_t b = bits(rng);
    double d;
    std::memcpy(&d, &b, sizeof d);
    v.push_back(d);
  }
  // Training figures: integers stored as doubles and cycle counts in picoseconds.
  for (int i = 0; i < 1000; ++i) v.push_back(static_cast<double>(bits(rng) >> (i % 64)));
  return v;
}

}  // namespace

TEST_CASE("fmt gives printf's characters for %g, %.Ng and %.Nf", "[format]") {
  const std::vector<double> numbers = test_numbers();
  const char* formats[] = {"%g",   "%.0g",  "%.1g",  "%.2g",  "%.3g",  "%.4g", "%.6g",
                           "%.9g", "%.10g", "%.15g", "%.16g", "%.17g", "%.g",  "%.0f",
                           "%.1f", "%.2f",  "%.3f",  "%.6f",  "%.17f", "%.f"};
  for (const char* f : formats)
    for (double v : numbers) {
      INFO(f << " of " << printf_of("%a", v));
      REQUIRE(fmt(f, v) == printf_of(f, v));
    }
}

TEST_CASE("fmt hands every other format to printf", "[format]") {
  const std::vector<double> numbers = test_numbers();
  const char* formats[] = {"%e",  "%12.4g", "%-8g", "%+g",   "%#g",    "%.18g", "%.25g", "%gx",
                           "x%g", "%G",     "%f",   "%.3gs", "%.1f%%", "%8.3f", "%.20f", "%.100g"};
  for (const char* f : formats)
    for (std::size_t i = 0; i < numbers.size(); i += 7) {
      INFO(f << " of " << printf_of("%a", numbers[i]));
      REQUIRE(fmt(f, numbers[i]) == printf_of(f, numbers[i]));
    }
}

TEST_CASE("format_general writes printf's %.Ng into a 32-char buffer", "[format]") {
  for (double v : test_numbers())
    for (int precision = 0; precision <= 17; ++precision) {
      char buf[32];
      const std::size_t n = format_general(v, precision, buf);
      char want[64];
      std::snprintf(want, sizeof want, "%.*g", precision, v);
      REQUIRE(std::string(buf, n) == want);
    }
}

}  // namespace trainsim
