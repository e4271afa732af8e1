#include "sim/devices/work_op.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace trainsim {

GemmShape gemm_for_work(double macs, double words) {
  if (!(macs >= 1)) throw std::logic_error("gemm_for_work: needs at least one MAC");
  // words(n) = n^2 + 2 macs / n falls to its least at the cube, n = macs^(1/3), then rises;
  // K = macs / n^2 reaches 1 at n = sqrt(macs).
  const double cube = std::cbrt(macs), outer = std::sqrt(macs);
  auto touched = [&](double n) { return n * n + 2 * macs / n; };
  double n = cube;
  if (words >= touched(outer)) {
    n = outer;
  } else if (words > touched(cube)) {
    double lo = cube, hi = outer;  // touched() rises over [lo, hi]
    for (int i = 0; i < 200 && hi - lo > 1e-9 * hi; ++i) {
      const double mid = 0.5 * (lo + hi);
      (touched(mid) < words ? lo : hi) = mid;
    }
    n = 0.5 * (lo + hi);
  }
  GemmShape g;
  g.n = std::max<std::int64_t>(1, std::llround(n));
  g.k = std::max<std::int64_t>(1, std::llround(macs / (static_cast<double>(g.n) * g.n)));
  g.m = std::max<std::int64_t>(1, std::llround(macs / (static_cast<double>(g.n) * g.k)));
  return g;
}

Op op_for_work(double macs, double bytes, int word_bytes, bool write) {
  if (word_bytes < 1) throw std::logic_error("op_for_work: a word has at least one byte");
  const double words = std::ceil(bytes / word_bytes);
  Op op;
  if (macs >= 1) {
    op = Op::make_gemm(gemm_for_work(macs, words));
  } else {
    ElementwiseShape e;
    e.elements = std::max<std::int64_t>(1, static_cast<std::int64_t>(words));
    e.reads = write ? 0 : 1;
    e.writes = write ? 1 : 0;
    e.flops = 0;
    op = Op::make_eltwise(e, OpRole::kForward);
  }
  op.word_bits = 8 * word_bytes;
  return op;
}

}  // namespace trainsim
