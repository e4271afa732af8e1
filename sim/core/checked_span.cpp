#include "sim/core/checked_span.h"

#include <cstdio>
#include <string>

#include "sim/core/error.h"

namespace trainsim {

void span_overflow(double x, const SpanBlame& b) {
  char num[64];
  auto g = [&num](double v) {
    std::snprintf(num, sizeof num, "%g", v);
    return std::string(num);
  };
  std::string msg = std::string(b.key) + ": at " + g(b.value);
  if (!b.other_key.empty()) msg += " (" + std::string(b.other_key) + " " + g(b.other_value) + ")";
  msg += " " + std::string(b.what) + " would take " + g(x) + " " + std::string(b.unit) +
         ", more than one may take (2^62 = " + g(kMaxSpan) + ")";
  throw UserError(msg);
}

}  // namespace trainsim
