#include "dataflows/systolic.h"

#include <stdexcept>

#include "dataflows/accumulator.h"
#include "dataflows/tile_values.h"
#include "sim/core/error.h"

namespace trainsim {
namespace {

std::int64_t ceil_div(std::int64_t a, std::int64_t b) {
  return (a + b - 1) / b;
}

// Which GEMM dimension (0: M, 1: N, 2: K) a dataflow puts on the array's rows, on its
// columns and in time (systolic.h).
struct SystolicAxes {
  int rows, cols, time;
};
SystolicAxes systolic_axes(Systolic kind) {
  switch (kind) {
    case Systolic::kOs:
      return {0, 1, 2};
    case Systolic::kWs:
      return {2, 1, 0};
    case Systolic::kIs:
      return {2, 0, 1};
  }
  return {0, 1, 2};
}

// Cycles a fold spends shifting its stationary tile in: R for ws and is, none for os.
std::int64_t load_cycles_of(Systolic kind, std::int64_t rows) {
  return kind == Systolic::kOs ? 0 : rows;
}

std::int64_t triangle(std::int64_t r) {
  return r * (r + 1) / 2;
}

}  // namespace

std::int64_t SystolicMapping::shift_in_latches_per_col() const {
  if (row_folds == 0) return 0;
  return (row_folds - 1) * triangle(rows) + triangle(rows_used(row_folds - 1));
}

std::int64_t SystolicMapping::fold_output_words() const {
  const std::int64_t c = std::min(cols, sc);
  return kind == Systolic::kOs ? std::min(rows, sr) * c : t * c;
}

std::int64_t SystolicMapping::compute_cycles() const {
  const std::int64_t f = folds();
  return f == 0 ? 0 : f * fold_cycles - 1;
}

std::vector<std::pair<std::string, std::int64_t>> SystolicMapping::summary() const {
  return {{"row_folds", row_folds},
          {"col_folds", col_folds},
          {"folds", folds()},
          {"row_dim", sr},
          {"col_dim", sc},
          {"stream_dim", t},
          {"fold_cycles", fold_cycles}};
}

SystolicMapping map_systolic(Systolic kind, const Op& op, const AcceleratorSpec& acc) {
  if (op.kind == OpKind::kElementwise)
    throw std::invalid_argument("systolic dataflow: element-wise ops do not run on the PE array");
  return map_systolic(kind, lower_to_gemm(op), acc);
}

SystolicMapping map_systolic(Systolic kind, const GemmShape& gemm, const AcceleratorSpec& acc) {
  if (acc.rows < 1 || acc.cols < 1)
    throw UserError("accelerator '" + acc.name + "' has no PEs (" + std::to_string(acc.rows) +
                    " x " + std::to_string(acc.cols) + ")");
  SystolicMapping m;
  m.kind = kind;
  m.gemm = gemm;
  m.rows = acc.rows;
  m.cols = acc.cols;
  const GemmShape& g = m.gemm;
  const std::int64_t dims[3] = {g.m, g.n, g.k};
  const SystolicAxes a = systolic_axes(kind);
  m.sr = dims[a.rows], m.sc = dims[a.cols], m.t = dims[a.time];
  // An empty GEMM maps to no folds at all rather than to folds of nothing.
  if (g.macs() > 0) {
    m.row_folds = ceil_div(m.sr, m.rows);
    m.col_folds = ceil_div(m.sc, m.cols);
  }
  m.load_cycles = load_cycles_of(kind, m.rows);
  m.fold_cycles = m.load_cycles + m.t + m.rows + m.cols - 2;
  m.psums_in_accumulator = accumulator_holds(m.fold_output_words(), acc);
  return m;
}

OpStats SystolicDataflow::evaluate(const Op& op, const AcceleratorSpec& acc) const {
  const SystolicMapping m = map_systolic(kind_, op, acc);
  OpStats st;
  st.pes = acc.pes();
  st.mapping = m.summary();
  if (m.folds() == 0) return st;
  st.macs = m.gemm.macs();
  st.compute_cycles = m.compute_cycles();
  // Shared by all three (systolic.h): each MAC reads both operand registers and one psum
  // and writes one psum.
  for (int o = 0; o < kNumOperands; ++o) st.rf.reads[o] = st.macs;
  st.rf.writes[kOfmap] = st.macs;
  add_counts(m, st);
  if (m.psums_in_accumulator)
    route_psums_to_accumulator(st, static_cast<Count>(m.gemm.m * m.gemm.n));
  return st;
}

std::int64_t SystolicDataflow::compute_cycles(const Op& op, const AcceleratorSpec& acc) const {
  return map_systolic(kind_, op, acc).compute_cycles();
}

std::int64_t SystolicDataflow::tile_compute_cycles(const NestProblem& p, const TileBox& box,
                                                   const AcceleratorSpec& acc) const {
  return map_systolic(kind_, tile_gemm(p, box), acc).compute_cycles();
}

bool SystolicDataflow::scalesim_view(const Op& op, const AcceleratorSpec& acc,
                                     ScaleSimView& out) const {
  const SystolicMapping m = map_systolic(kind_, op, acc);
  out = m.folds() == 0 ? ScaleSimView{} : scalesim(m);
  if (m.folds() > 0)
    out.mapping_efficiency_pct =
        100.0 * static_cast<double>(m.sr * m.sc) / static_cast<double>(m.folds() * m.rows * m.cols);
  return true;
}

std::array<std::int64_t, kNumDims> SystolicDataflow::tile_granules(
    const NestProblem& p, const AcceleratorSpec& acc) const {
  std::array<std::int64_t, kNumDims> g;
  g.fill(1);
  // A tile's GEMM has N = K (filters): ws and os spread it over the array's columns, so K
  // tiles come in whole columns. (Its other two dimensions are products of several loop
  // dimensions; tiles that use the array badly are slow, which the search's objective sees.)
  if (kind_ != Systolic::kIs) g[kDimK] = acc.cols;
  return g;
}

double SystolicDataflow::compute_floor_factor(const NestProblem& p, const AcceleratorSpec& acc,
                                              TileBlock block,
                                              const std::vector<BlockTile>* tiles) const {
  // A tile's GEMM (tile_op) has M rows from the pixel block, depth K from the reduction
  // block (stored positions) and N columns from the filter block. Its cycles, F L - 1 with
  // F = ceil(Sr / R) ceil(Sc / C) folds, are at least F (L - 1), and 0 for an empty GEMM
  // (F = 0), where L - 1 is the streamed extent T plus R + C - 3 (os) or 2R + C - 3 (ws, is):
  //   ws: ceil(K/R) ceil(N/C) (M + 2R + C - 3)
  //   os: ceil(M/R) ceil(N/C) (K + R + C - 3), 0 if K = 0
  //   is: ceil(K/R) ceil(M/C) (N + 2R + C - 3)
  // a product of one function of each block's extent. The tiles are every combination of
  // one tile of each block, so their sum is the product of the three blocks' sums; and the
  // least sum over any tiling of a block is at least the function of the whole extent (a sum
  // of ceilings is at least the ceiling of the sum, and a block has at least one tile, not
  // empty when the problem is not).
  const std::int64_t R = acc.rows, C = acc.cols;
  const std::int64_t m_all = p.extent[kDimN] * p.extent[kDimP] * p.extent[kDimQ];
  const std::int64_t k_all =
      p.extent[kDimC] * p.k_rows.real_in(0, p.extent[kDimR]) * p.k_cols.real_in(0, p.extent[kDimS]);
  const std::int64_t n_all = p.extent[kDimK];
  if (R < 1 || C < 1 || m_all == 0 || k_all == 0 || n_all == 0) return 0;
  // The block's GEMM dimension (pixels M, filters N, reduction K) and where the dataflow
  // puts it: on the rows or columns (its folds), or in time (L - 1, nothing for no work).
  const int dim = block == TileBlock::kPixels ? 0 : block == TileBlock::kFilters ? 1 : 2;
  const SystolicAxes a = systolic_axes(kind_);
  auto f = [&](std::int64_t x) -> std::int64_t {
    if (dim == a.rows) return ceil_div(x, R);
    if (dim == a.cols) return ceil_div(x, C);
    return x == 0 ? 0 : load_cycles_of(kind_, R) + x + R + C - 3;
  };
  const std::int64_t whole[3] = {m_all, n_all, k_all};
  if (!tiles) return static_cast<double>(f(whole[dim]));
  std::int64_t sum = 0;
  for (const BlockTile& t : *tiles) sum += t.count * f(t.stored);
  return static_cast<double>(sum);
}

std::unique_ptr<ArrayEngine> SystolicDataflow::engine(const Op& op, const AcceleratorSpec& acc,
                                                      OperandValues values) const {
  const SystolicMapping m = map_systolic(kind_, op, acc);
  const GemmShape& g = m.gemm;
  if (static_cast<std::int64_t>(values.a.size()) != g.m * g.k ||
      static_cast<std::int64_t>(values.b.size()) != g.k * g.n)
    throw std::invalid_argument(name() + " engine: operand sizes do not match lower_to_gemm(" +
                                op.describe() + ")");
  return make_engine(m, std::move(values));
}

}  // namespace trainsim
