#include "sim/accel/reference.h"

#include "sim/core/rng.h"

namespace trainsim {

OperandValues make_operands(const Op& op, bool gemm_based, std::uint64_t seed) {
  Rng rng(seed);
  auto fill = [&](std::int64_t n) {
    std::vector<double> v(static_cast<std::size_t>(n));
    for (auto& x : v) x = static_cast<double>(static_cast<int>(rng.below(7)) - 3);
    return v;
  };
  OperandValues v;
  if (gemm_based) {
    const GemmShape g = lower_to_gemm(op);
    v.a = fill(g.m * g.k);
    v.b = fill(g.k * g.n);
  } else {
    const ConvShape c = lower_to_conv(op);
    v.a = fill(c.batch * c.channels * c.height * c.width);
    v.b = fill(c.filters * c.channels * c.kernel_h * c.kernel_w);
  }
  return v;
}

std::vector<double> reference_gemm(const GemmShape& g, const std::vector<double>& a,
                                   const std::vector<double>& b) {
  std::vector<double> c(static_cast<std::size_t>(g.m * g.n), 0.0);
  for (std::int64_t i = 0; i < g.m; ++i)
    for (std::int64_t k = 0; k < g.k; ++k) {
      const double av = a[static_cast<std::size_t>(i * g.k + k)];
      if (av == 0) continue;
      for (std::int64_t j = 0; j < g.n; ++j)
        c[static_cast<std::size_t>(i * g.n + j)] += av * b[static_cast<std::size_t>(k * g.n + j)];
    }
  return c;
}

std::vector<double> reference_conv(const ConvShape& c, const std::vector<double>& input,
                                   const std::vector<double>& weights) {
  const std::int64_t ho = c.out_h(), wo = c.out_w();
  std::vector<double> out(static_cast<std::size_t>(c.batch * c.filters * ho * wo), 0.0);
  for (std::int64_t n = 0; n < c.batch; ++n)
    for (std::int64_t f = 0; f < c.filters; ++f)
      for (std::int64_t oy = 0; oy < ho; ++oy)
        for (std::int64_t ox = 0; ox < wo; ++ox) {
          double acc = 0;
          for (std::int64_t ch = 0; ch < c.channels; ++ch)
            for (std::int64_t r = 0; r < c.kernel_h; ++r)
              for (std::int64_t s = 0; s < c.kernel_w; ++s) {
                const std::int64_t iy = oy * c.stride + r - c.pad, ix = ox * c.stride + s - c.pad;
                if (iy < 0 || iy >= c.height || ix < 0 || ix >= c.width) continue;
                acc += input[static_cast<std::size_t>(
                           ((n * c.channels + ch) * c.height + iy) * c.width + ix)] *
                       weights[static_cast<std::size_t>(
                           ((f * c.channels + ch) * c.kernel_h + r) * c.kernel_w + s)];
              }
          out[static_cast<std::size_t>(((n * c.filters + f) * ho + oy) * wo + ox)] = acc;
        }
  return out;
}

std::vector<double> reference_result(const Op& op, bool gemm_based, const OperandValues& v) {
  if (gemm_based) return reference_gemm(lower_to_gemm(op), v.a, v.b);
  return reference_conv(lower_to_conv(op), v.a, v.b);
}

}  // namespace trainsim
