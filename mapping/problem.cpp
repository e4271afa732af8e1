#include "mapping/problem.h"

#include <stdexcept>

namespace trainsim {

namespace {

// ceil(a / b) for b > 0 and any sign of a.
std::int64_t ceil_div_signed(std::int64_t a, std::int64_t b) {
  return a >= 0 ? (a + b - 1) / b : -((-a) / b);
}

}  // namespace

const char* dim_name(int dim, bool gemm) {
  static const char* const conv_names[kNumDims] = {"N", "K", "C", "P", "Q", "R", "S"};
  static const char* const gemm_names[kNumDims] = {"", "N", "K", "M", "", "", ""};
  return (gemm ? gemm_names : conv_names)[dim];
}

std::int64_t RealAxis::real_in(std::int64_t lo, std::int64_t len) const {
  if (step == 1)  // undilated, the common case: no division (the search asks millions of times)
    return std::max<std::int64_t>(
        0, std::min(count, lo + len - offset) - std::max<std::int64_t>(0, lo - offset));
  const std::int64_t j_lo = std::max<std::int64_t>(0, ceil_div_signed(lo - offset, step));
  const std::int64_t j_hi = std::min(count, ceil_div_signed(lo + len - offset, step));
  return std::max<std::int64_t>(0, j_hi - j_lo);
}

std::int64_t touched_positions(const RealAxis& axis, std::int64_t out0, std::int64_t n_out,
                               std::int64_t stride, std::int64_t k0, std::int64_t n_k) {
  if (n_k >= stride || n_out == 1)
    return axis.real_in(out0 * stride + k0, (n_out - 1) * stride + n_k);
  // A stride longer than the kernel tile skips positions between windows: they are never
  // read, so they are not fetched either.
  std::int64_t sum = 0;
  for (std::int64_t p = out0; p < out0 + n_out; ++p) sum += axis.real_in(p * stride + k0, n_k);
  return sum;
}

std::int64_t NestProblem::tile_words(int o, const TileBox& b) const {
  const auto& x = b.origin;
  const auto& e = b.extent;
  switch (o) {
    case kIfmap:
      return e[kDimN] * e[kDimC] *
             touched_positions(in_rows, x[kDimP], e[kDimP], stride, x[kDimR], e[kDimR]) *
             touched_positions(in_cols, x[kDimQ], e[kDimQ], stride, x[kDimS], e[kDimS]);
    case kFilter:
      if (filter_elsewhere) return 0;
      return e[kDimK] * e[kDimC] * k_rows.real_in(x[kDimR], e[kDimR]) *
             k_cols.real_in(x[kDimS], e[kDimS]);
    default:
      return e[kDimN] * e[kDimK] * e[kDimP] * e[kDimQ];
  }
}

TileBox NestProblem::whole() const {
  TileBox b;
  b.extent = extent;
  return b;
}

std::array<std::int64_t, kNumOperands> NestProblem::total_words() const {
  const TileBox b = whole();
  return {tile_words(kIfmap, b), tile_words(kFilter, b), tile_words(kOfmap, b)};
}

std::string NestProblem::describe() const {
  std::string s = op.describe();
  if (op.kind == OpKind::kConv && conv_pass(op.role) != OpRole::kForward) {
    s += " (as the convolution " + std::to_string(conv.batch) + "x" +
         std::to_string(conv.channels) + "x" + std::to_string(conv.height) + "x" +
         std::to_string(conv.width) + " k" + std::to_string(conv.kernel_h) + "x" +
         std::to_string(conv.kernel_w) + " -> " + std::to_string(conv.filters) + ")";
  }
  return s;
}

NestProblem make_problem(const Op& op, bool gemm_based) {
  if (op.kind == OpKind::kElementwise)
    throw std::invalid_argument("make_problem: element-wise ops have no buffer-level loop nest");
  NestProblem p;
  p.op = op;
  p.op.repeat = 1;
  p.gemm = op.kind == OpKind::kGemm;
  p.gemm_based = gemm_based;
  p.conv = lower_to_conv(op);
  p.filter_elsewhere = op.resident_filter;
  const ConvShape& c = p.conv;
  p.extent = {c.batch, c.filters, c.channels, c.out_h(), c.out_w(), c.kernel_h, c.kernel_w};
  p.stride = c.stride;
  p.in_rows = {c.pad, 1, c.height};
  p.in_cols = {c.pad, 1, c.width};
  p.k_rows = {0, 1, c.kernel_h};
  p.k_cols = {0, 1, c.kernel_w};
  if (op.kind != OpKind::kConv) return p;
  const ConvShape& f = op.conv;  // the layer
  switch (conv_pass(op.role)) {
    case OpRole::kBackwardData:
      // The lowered input is dY dilated by the stride and padded by R-1-pad: only the
      // dY positions are stored.
      p.in_rows = {f.kernel_h - 1 - f.pad, f.stride, f.out_h()};
      p.in_cols = {f.kernel_w - 1 - f.pad, f.stride, f.out_w()};
      break;
    case OpRole::kBackwardWeight:
      // The lowered kernel is dY dilated by the stride.
      p.k_rows = {0, f.stride, f.out_h()};
      p.k_cols = {0, f.stride, f.out_w()};
      if (gemm_based) p.extent[kDimP] = f.kernel_h, p.extent[kDimQ] = f.kernel_w;
      break;
    default:
      break;
  }
  return p;
}

}  // namespace trainsim
