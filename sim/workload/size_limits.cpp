#include "sim/workload/size_limits.h"

#include <algorithm>
#include <limits>

namespace trainsim {

namespace {

constexpr std::int64_t kSaturated = std::numeric_limits<std::int64_t>::max();

// "137438953472", or "more than 2^63" for a saturated product.
std::string count(std::int64_t n) {
  return n == kSaturated ? "more than 2^63" : std::to_string(n);
}

// "forms 137438953472 MACs or values per sample, more than the limit of 68719476736 (2^36)"
std::string exceeds(const char* verb, std::int64_t n, const char* unit, std::int64_t limit,
                    int log2) {
  return std::string(verb) + " " + count(n) + " " + unit + ", more than the limit of " +
         std::to_string(limit) + " (2^" + std::to_string(log2) + ")";
}

}  // namespace

std::int64_t saturating_product(std::initializer_list<std::int64_t> factors) {
  std::int64_t p = 1;
  for (std::int64_t f : factors) {
    if (f == 0) return 0;
    if (__builtin_mul_overflow(p, f, &p)) p = kSaturated;
  }
  return p;
}

std::string size_limit_violation(std::int64_t values, std::int64_t params, std::int64_t work) {
  if (values > kMaxSampleValues)
    return exceeds("produces", values, "values per sample", kMaxSampleValues, 30);
  if (params > kMaxLayerParams) return exceeds("has", params, "parameters", kMaxLayerParams, 30);
  if (work > kMaxSampleWork)
    return exceeds("forms", work, "MACs or values per sample", kMaxSampleWork, 36);
  return "";
}

}  // namespace trainsim
