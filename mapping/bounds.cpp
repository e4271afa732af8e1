#include "mapping/bounds.h"

#include <algorithm>
#include <cmath>

namespace trainsim {

namespace {

// Along one axis of the lowered convolution: output positions o < n_out, kernel positions
// r < n_k, input position o U + r. Counts the (o, r) pairs whose input and kernel positions
// are both stored, and the most such pairs that share one input position.
struct AxisPairs {
  std::int64_t pairs = 0, most_per_input = 0;
};

AxisPairs axis_pairs(const RealAxis& in, const RealAxis& k, std::int64_t n_out, std::int64_t n_k,
                     std::int64_t stride) {
  AxisPairs a;
  const std::int64_t span = (n_out - 1) * stride + n_k;  // input positions the windows cover
  std::vector<std::int64_t> per_input(static_cast<std::size_t>(std::max<std::int64_t>(span, 0)), 0);
  for (std::int64_t o = 0; o < n_out; ++o) {
    for (std::int64_t r = 0; r < n_k; ++r) {
      const std::int64_t i = o * stride + r;
      if (in.real_in(i, 1) == 0 || k.real_in(r, 1) == 0) continue;
      ++a.pairs;
      a.most_per_input = std::max(a.most_per_input, ++per_input[static_cast<std::size_t>(i)]);
    }
  }
  return a;
}

}  // namespace

double TrafficBound::words() const {
  return std::max(static_cast<double>(compulsory_words), communication_words);
}

TrafficBound traffic_bound(const NestProblem& p, std::int64_t buffer_words) {
  TrafficBound b;
  const auto total = p.total_words();
  b.compulsory_words = total[kIfmap] + total[kFilter] + total[kOfmap];
  const auto& e = p.extent;
  const AxisPairs rows = axis_pairs(p.in_rows, p.k_rows, e[kDimP], e[kDimR], p.stride);
  const AxisPairs cols = axis_pairs(p.in_cols, p.k_cols, e[kDimQ], e[kDimS], p.stride);
  b.stored_macs = e[kDimN] * e[kDimK] * e[kDimC] * rows.pairs * cols.pairs;
  b.reuse = std::max<std::int64_t>(1, rows.most_per_input * cols.most_per_input);
  const double s = static_cast<double>(std::max<std::int64_t>(1, buffer_words));
  b.communication_words = std::max(
      0.0, 2.0 * static_cast<double>(b.stored_macs) / std::sqrt(static_cast<double>(b.reuse) * s) -
               2.0 * s);
  return b;
}

}  // namespace trainsim
