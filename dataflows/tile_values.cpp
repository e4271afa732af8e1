#include "dataflows/tile_values.h"

#include <stdexcept>

namespace trainsim {

namespace {

using Idx = std::int64_t;

bool spans_window(const NestProblem& p, const TileBox& b) {
  return b.extent[kDimP] == p.extent[kDimP] && b.extent[kDimQ] == p.extent[kDimQ] &&
         b.extent[kDimR] == p.extent[kDimR] && b.extent[kDimS] == p.extent[kDimS];
}

}  // namespace

ConvShape tile_conv(const NestProblem& p, const TileBox& b) {
  ConvShape c = p.conv;
  c.batch = b.extent[kDimN];
  c.channels = b.extent[kDimC];
  c.filters = b.extent[kDimK];
  if (!spans_window(p, b)) {
    c.height = (b.extent[kDimP] - 1) * p.stride + b.extent[kDimR];
    c.width = (b.extent[kDimQ] - 1) * p.stride + b.extent[kDimS];
    c.kernel_h = b.extent[kDimR];
    c.kernel_w = b.extent[kDimS];
    c.pad = 0;
  }
  return c;
}

GemmShape tile_gemm(const NestProblem& p, const TileBox& b) {
  const Idx rows = p.k_rows.real_in(b.origin[kDimR], b.extent[kDimR]);
  const Idx cols = p.k_cols.real_in(b.origin[kDimS], b.extent[kDimS]);
  return {b.extent[kDimN] * b.extent[kDimP] * b.extent[kDimQ], b.extent[kDimK],
          b.extent[kDimC] * rows * cols};
}

Op tile_op(const NestProblem& p, const TileBox& b) {
  Op op;
  if (p.gemm_based) {
    op = Op::make_gemm(tile_gemm(p, b), p.op.role, p.op.layer);
  } else {
    op = Op::make_conv(tile_conv(p, b), OpRole::kForward, p.op.layer);
  }
  op.word_bits = p.op.word_bits;
  op.resident_filter = p.op.resident_filter;
  return op;
}

std::int64_t Dataflow::tile_compute_cycles(const NestProblem& p, const TileBox& box,
                                           const AcceleratorSpec& acc) const {
  return compute_cycles(tile_op(p, box), acc);
}

std::int64_t result_size(const NestProblem& p) {
  const auto& e = p.extent;
  return e[kDimN] * e[kDimK] * e[kDimP] * e[kDimQ];
}

OperandValues tile_operands(const NestProblem& p, const TileBox& b, const OperandValues& whole) {
  const auto& e = p.extent;
  const auto& o = b.origin;
  const auto& x = b.extent;
  OperandValues t;
  if (p.gemm_based) {
    // Whole GEMM: A rows (n, p, q), columns (c, stored kernel row, stored kernel column).
    const Idx kr_all = p.k_rows.count, kc_all = p.k_cols.count;
    const Idx k_all = e[kDimC] * kr_all * kc_all;
    const Idx kr0 = p.k_rows.real_in(0, o[kDimR]), kc0 = p.k_cols.real_in(0, o[kDimS]);
    const Idx kr = p.k_rows.real_in(o[kDimR], x[kDimR]), kc = p.k_cols.real_in(o[kDimS], x[kDimS]);
    std::vector<Idx> cols;  // whole-GEMM column of each tile column
    for (Idx c = 0; c < x[kDimC]; ++c)
      for (Idx r = 0; r < kr; ++r)
        for (Idx s = 0; s < kc; ++s)
          cols.push_back(((o[kDimC] + c) * kr_all + kr0 + r) * kc_all + kc0 + s);
    const Idx k_t = static_cast<Idx>(cols.size());
    // The columns as runs of consecutive ones (one run for a plain GEMM, one per kernel row
    // of a convolution's): each row of A is copied a run at a time, as is each row of B's
    // filter range. The cycle fidelity gathers every tile's operands this way.
    std::vector<std::pair<Idx, Idx>> runs;  // (first column, length)
    for (Idx col : cols) {
      if (!runs.empty() && runs.back().first + runs.back().second == col)
        ++runs.back().second;
      else
        runs.emplace_back(col, 1);
    }
    auto from = [](const std::vector<double>& v, Idx i) { return v.begin() + i; };
    t.a.reserve(static_cast<std::size_t>(x[kDimN] * x[kDimP] * x[kDimQ] * k_t));
    for (Idx n = 0; n < x[kDimN]; ++n)
      for (Idx pp = 0; pp < x[kDimP]; ++pp)
        for (Idx q = 0; q < x[kDimQ]; ++q) {
          const Idx row = ((o[kDimN] + n) * e[kDimP] + o[kDimP] + pp) * e[kDimQ] + o[kDimQ] + q;
          for (const auto& [first, length] : runs)
            t.a.insert(t.a.end(), from(whole.a, row * k_all + first),
                       from(whole.a, row * k_all + first + length));
        }
    t.b.reserve(static_cast<std::size_t>(k_t * x[kDimK]));
    for (Idx col : cols)
      t.b.insert(t.b.end(), from(whole.b, col * e[kDimK] + o[kDimK]),
                 from(whole.b, col * e[kDimK] + o[kDimK] + x[kDimK]));
    return t;
  }
  const ConvShape& w = p.conv;  // the whole lowered convolution
  const ConvShape c = tile_conv(p, b);
  const bool whole_window = spans_window(p, b);
  // Unpadded input row / column of the tile's first row / column.
  const Idx row0 = whole_window ? 0 : o[kDimP] * p.stride + o[kDimR] - w.pad;
  const Idx col0 = whole_window ? 0 : o[kDimQ] * p.stride + o[kDimS] - w.pad;
  t.a.assign(static_cast<std::size_t>(c.batch * c.channels * c.height * c.width), 0.0);
  for (Idx n = 0; n < c.batch; ++n)
    for (Idx ch = 0; ch < c.channels; ++ch)
      for (Idx i = 0; i < c.height; ++i) {
        const Idx y = row0 + i;
        if (y < 0 || y >= w.height) continue;
        for (Idx j = 0; j < c.width; ++j) {
          const Idx xx = col0 + j;
          if (xx < 0 || xx >= w.width) continue;
          t.a[static_cast<std::size_t>(((n * c.channels + ch) * c.height + i) * c.width + j)] =
              whole.a[static_cast<std::size_t>(
                  (((o[kDimN] + n) * w.channels + o[kDimC] + ch) * w.height + y) * w.width + xx)];
        }
      }
  t.b.assign(static_cast<std::size_t>(c.filters * c.channels * c.kernel_h * c.kernel_w), 0.0);
  for (Idx k = 0; k < c.filters; ++k)
    for (Idx ch = 0; ch < c.channels; ++ch)
      for (Idx r = 0; r < c.kernel_h; ++r)
        for (Idx s = 0; s < c.kernel_w; ++s)
          t.b[static_cast<std::size_t>(((k * c.channels + ch) * c.kernel_h + r) * c.kernel_w + s)] =
              whole.b[static_cast<std::size_t>(
                  (((o[kDimK] + k) * w.channels + o[kDimC] + ch) * w.kernel_h + o[kDimR] + r) *
                      w.kernel_w +
                  o[kDimS] + s)];
  return t;
}

void accumulate_tile(const NestProblem& p, const TileBox& b, const std::vector<double>& tile,
                     std::vector<double>& whole) {
  const auto& e = p.extent;
  const auto& o = b.origin;
  const auto& x = b.extent;
  if (static_cast<Idx>(tile.size()) != x[kDimN] * x[kDimK] * x[kDimP] * x[kDimQ])
    throw std::invalid_argument("accumulate_tile: tile result of the wrong size");
  Idx i = 0;
  if (p.gemm_based) {
    // C rows (n, p, q), columns k.
    for (Idx n = 0; n < x[kDimN]; ++n)
      for (Idx pp = 0; pp < x[kDimP]; ++pp)
        for (Idx q = 0; q < x[kDimQ]; ++q) {
          const Idx row = ((o[kDimN] + n) * e[kDimP] + o[kDimP] + pp) * e[kDimQ] + o[kDimQ] + q;
          for (Idx k = 0; k < x[kDimK]; ++k)
            whole[static_cast<std::size_t>(row * e[kDimK] + o[kDimK] + k)] +=
                tile[static_cast<std::size_t>(i++)];
        }
    return;
  }
  for (Idx n = 0; n < x[kDimN]; ++n)
    for (Idx k = 0; k < x[kDimK]; ++k)
      for (Idx pp = 0; pp < x[kDimP]; ++pp)
        for (Idx q = 0; q < x[kDimQ]; ++q)
          whole[static_cast<std::size_t>(
              (((o[kDimN] + n) * e[kDimK] + o[kDimK] + k) * e[kDimP] + o[kDimP] + pp) * e[kDimQ] +
              o[kDimQ] + q)] += tile[static_cast<std::size_t>(i++)];
}

}  // namespace trainsim
