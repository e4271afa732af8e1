#include "dataflows/rs_mapping.h"

#include <algorithm>
#include <array>
#include <initializer_list>
#include <stdexcept>
#include <utility>

#include "dataflows/accumulator.h"
#include "dataflows/tile_values.h"
#include "sim/core/error.h"

namespace trainsim {
namespace {

std::int64_t ceil_div(std::int64_t a, std::int64_t b) {
  return (a + b - 1) / b;
}

// |[lo, hi) ∩ [a, b)|
std::int64_t overlap(std::int64_t lo, std::int64_t hi, std::int64_t a, std::int64_t b) {
  return std::max<std::int64_t>(0, std::min(hi, b) - std::max(lo, a));
}

// Size of the union of `count` intervals [k*step + base, k*step + base + len), k = 0..,
// clipped to [a, b). The intervals are sorted, so a running "covered up to" merges them.
std::int64_t strided_union(std::int64_t count, std::int64_t step, std::int64_t base,
                           std::int64_t len, std::int64_t a, std::int64_t b) {
  std::int64_t covered = base, total = 0;
  for (std::int64_t k = 0; k < count; ++k) {
    const std::int64_t lo = std::max(k * step + base, covered), hi = k * step + base + len;
    if (hi > lo) total += overlap(lo, hi, a, b);
    covered = std::max(covered, hi);
  }
  return total;
}

// sum over i in [0, n) of floor((a i + b) / m), for n, a, b >= 0 and m >= 1: the lattice
// points under a line, counted in O(log) steps by taking the whole multiples of m out of a
// and b and then exchanging the axes (Euclid's recursion). In 128 bits: with a billion jobs
// the sums pass 2^63, though the differences taken of them are small.
using Wide = __int128;
Wide floor_sum(Wide n, Wide m, Wide a, Wide b) {
  Wide sum = 0;
  while (n > 0) {
    if (a >= m) {
      sum += (a / m) * (n * (n - 1) / 2);
      a %= m;
    }
    if (b >= m) {
      sum += (b / m) * n;
      b %= m;
    }
    const Wide top = a * n + b;  // a i + b at i = n
    if (top < m) break;
    n = top / m;
    b = top % m;
    std::swap(m, a);
  }
  return sum;
}

void require_rf(std::int64_t have, std::int64_t need, const char* rf, const char* what,
                const Op& op) {
  if (have >= need) return;
  throw UserError("rs dataflow: the " + std::string(rf) + " register file (" +
                  std::to_string(have) + " words) cannot hold " + what + " of " + op.describe());
}

enum Dim { kImage, kFilterGroup, kChannelGroup, kChunk };
struct Extent {
  Dim dim;
  std::int64_t n;
};

// A category's job indices from the innermost outwards, in `order`.
std::array<Extent, 4> job_dims(RsOrder order, std::int64_t N, const RsCategory& cat) {
  const Extent n{kImage, N}, fg{kFilterGroup, cat.nfg}, cg{kChannelGroup, cat.ncg},
      k{kChunk, cat.nk};
  switch (order) {
    case RsOrder::kImages:
      return {n, k, cg, fg};
    case RsOrder::kOutputs:
      return {k, cg, fg, n};
    case RsOrder::kFilters:
      break;
  }
  return {fg, k, cg, n};
}

// Jobs in a run whose key leaves out the indices in `free`: neighbours differ in the innermost
// index that changes, so a run is the innermost indices that are free (or have one value).
std::int64_t run_length(const std::array<Extent, 4>& dims, std::initializer_list<Dim> free) {
  std::int64_t run = 1;
  for (const Extent& d : dims) {
    if (d.n > 1 && std::find(free.begin(), free.end(), d.dim) == free.end()) break;
    run *= d.n;
  }
  return run;
}

}  // namespace

RsJob RsMapping::job(std::int64_t idx) const {
  for (const RsCategory& cat : categories) {
    if (idx >= cat.count) {
      idx -= cat.count;
      continue;
    }
    std::int64_t at[4] = {0, 0, 0, 0};
    for (const Extent& d : job_dims(order, N, cat)) {
      at[d.dim] = idx % d.n;
      idx /= d.n;
    }
    RsJob j;
    j.n = at[kImage];
    j.fg = cat.fg0 + at[kFilterGroup];
    j.cg = cat.cg0 + at[kChannelGroup];
    j.k = cat.k0 + at[kChunk];
    j.p = cat.p;
    j.q = cat.q;
    j.s = cat.s;
    j.off = j.k * chunk_cols;
    return j;
  }
  throw std::out_of_range("RsMapping::job: index past the last job");
}

std::int64_t RsMapping::real_rows(const RsClass& c) const {
  // Output row e of the strip with filter rows [r0, r0 + h) reads padded input rows
  // [e U + r0, e U + r0 + h): consecutive strips overlap when U < h (diagonal reuse).
  return strided_union(c.w, U, c.e0 * U + c.r0, c.h, P, P + H);
}

std::int64_t RsMapping::input_run(const RsCategory& cat) const {
  return run_length(job_dims(order, N, cat), {kFilterGroup});
}

std::int64_t RsMapping::weight_run(const RsCategory& cat) const {
  return run_length(job_dims(order, N, cat), {kImage});
}

std::int64_t RsMapping::output_run(const RsCategory& cat) const {
  return run_length(job_dims(order, N, cat), {kChannelGroup, kChunk});
}

RsCategoryReads RsMapping::category_reads(const RsClass& c, const RsCategory& cat,
                                          std::int64_t first, std::int64_t rows_read) const {
  // Runs j = phase + period t (t < runs) of L jobs each, run j holding the class's jobs from
  // first + j L: each is read (drained) once in every window of `window` jobs it touches
  // (the windows are the passes, or the stacks, aligned from the class's first job),
  // floor(its last / window) - floor(its first / window) + 1 of them, summed over t in closed
  // form.
  auto touched = [&](std::int64_t L, std::int64_t phase, std::int64_t period, std::int64_t runs,
                     std::int64_t window) {
    // A run of one job touches one window, and a window of one job holds one job of a run:
    // the common cases (nothing shared, no chains) without the sums.
    if (L == 1 || window == 1) return runs * L;
    const std::int64_t b = first + phase * L, a = period * L;
    return static_cast<std::int64_t>(floor_sum(runs, window, a, b + L - 1) -
                                     floor_sum(runs, window, a, b)) +
           runs;
  };
  RsCategoryReads r;
  // Runs of equal inputs take the row chunks in turn: a run of more than one job is filter
  // groups (kFilters, the chunk the next index out) or has one chunk.
  const std::int64_t li = input_run(cat), runs = cat.count / li;
  for (std::int64_t k = 0; k < cat.nk; ++k)
    r.input_words += chunk_real_cols[cat.k0 + k] * touched(li, k, cat.nk, runs / cat.nk, c.rep());
  r.input_words *= cat.q * rows_read;
  const std::int64_t lw = weight_run(cat);
  r.weight_jobs = touched(lw, 0, 1, cat.count / lw, c.rep());
  const std::int64_t lo = output_run(cat);
  r.drain_jobs = touched(lo, 0, 1, cat.count / lo, stack(c));
  return r;
}

std::vector<std::pair<std::string, std::int64_t>> RsMapping::summary() const {
  std::int64_t passes_total = 0;
  for (const RsClass& c : classes) passes_total += passes(c);
  const RsClass& first = classes.front();
  std::vector<std::pair<std::string, std::int64_t>> s = {
      {"set_rows", R},
      {"set_cols", E},
      {"segments", ceil_div(R, rows)},
      {"strips", ceil_div(E, cols)},
      {"p", p},
      {"q", q},
      {"sets_per_pass", first.rep()},
      {"jobs", jobs_per_class * static_cast<std::int64_t>(classes.size())},
      {"passes", passes_total},
      {"row_chunks", chunks},
      {"chunk_cols", chunk_cols}};
  // Only when chosen, so that the summaries of mappings without it read as before.
  if (psum_resident) s.emplace_back("psum_resident", 1);
  if (order == RsOrder::kImages) s.emplace_back("images_inner", 1);
  if (chained) s.emplace_back("chained_psums", 1);
  return s;
}

namespace {

// The mapping's scalars (dimensions, row chunks, p and q), without its vectors, for the
// convolution `c` the array runs; `op` names it in errors.
RsMapping rs_frame(const ConvShape& conv, const AcceleratorSpec& acc, const Op& op) {
  RsMapping m;
  m.conv = conv;
  const ConvShape& c = m.conv;
  m.N = c.batch;
  m.C = c.channels;
  m.M = c.filters;
  m.H = c.height;
  m.W = c.width;
  m.R = c.kernel_h;
  m.S = c.kernel_w;
  m.U = c.stride;
  m.P = c.pad;
  m.E = c.out_h();
  m.F = c.out_w();
  m.rows = acc.rows;
  m.cols = acc.cols;
  if (m.N < 1 || m.C < 1 || m.M < 1 || m.R < 1 || m.S < 1 || m.U < 1 || m.P < 0 ||
      m.H + 2 * m.P < m.R || m.W + 2 * m.P < m.S || m.rows < 1 || m.cols < 1)
    throw UserError("rs dataflow: cannot map " + op.describe() +
                    " (empty dimension or kernel larger than the padded input)");

  require_rf(acc.rf.weight_words, 1, "weight", "one weight", op);
  require_rf(acc.rf.input_words, 1, "input", "one input word", op);
  require_rf(acc.rf.psum_words, 1, "psum", "one partial sum", op);
  // Row chunks: a filter row longer than the input or weight RF is convolved in pieces of
  // S' columns (the last one ragged); each piece is a job of its own whose psums the buffer
  // accumulates, as for channel groups. S' is as large as fits, so rows that fit are one
  // chunk and map exactly as without chunking.
  m.chunk_cols = std::min({m.S, acc.rf.input_words, acc.rf.weight_words});
  m.chunks = ceil_div(m.S, m.chunk_cols);
  const std::int64_t Sc = m.chunk_cols;
  // Greedy RF-level reuse: channels first (each extra channel needs S' more input words and
  // p S' more weight words), then as many filters as the psum and weight RFs allow.
  m.q = std::min({m.C, acc.rf.input_words / Sc, acc.rf.weight_words / Sc});
  m.p = std::min({m.M, acc.rf.psum_words, acc.rf.weight_words / (m.q * Sc)});
  m.group_p = m.p;
  m.group_q = m.q;
  // rf.keep_psums: where the psum RF holds a row of F sums for a filter and there is more
  // than one channel group to keep them across, each PE keeps F sums for each of its p
  // filters while the groups pass, holding one group's weights (at least one channel) at a
  // time.
  if (acc.rf.keep_psums && m.F <= acc.rf.psum_words && m.C > m.q) {
    m.psum_resident = true;
    m.p = std::min({m.M, acc.rf.psum_words / m.F, acc.rf.weight_words / Sc});
    m.q = m.C;
  }
  // array.chain_psums: where an output's partial sums come in more than one job (channel
  // groups or row chunks) and a column holds more than one set (of the shortest segment,
  // R mod rows rows, or all R), stacked sets with the same outputs sum them up the column.
  // Where no class stacks sets, the job order is the multicast's.
  const std::int64_t shortest = m.R % m.rows != 0 ? m.R % m.rows : std::min(m.rows, m.R);
  m.chained = acc.chain_psums && (m.C > m.q || m.chunks > 1) && m.rows / shortest > 1;
  if (m.chained) m.order = RsOrder::kOutputs;
  return m;
}

RsMapping rs_frame(const Op& op, const AcceleratorSpec& acc) {
  if (op.kind == OpKind::kElementwise)
    throw std::invalid_argument("rs dataflow: element-wise ops do not run on the PE array");
  return rs_frame(lower_to_conv(op), acc, op);
}

// Categories: full / ragged filter group x full / ragged channel group x full / ragged row
// chunk, longest job first (stable); at most 8. Returns how many.
int rs_categories(const RsMapping& m, std::array<RsCategory, 8>& cats) {
  const std::int64_t Sc = m.chunk_cols;
  const std::int64_t fg_full = m.M / m.p, p_rag = m.M % m.p;
  const std::int64_t cg_full = m.C / m.q, q_rag = m.C % m.q;
  const std::int64_t k_full = m.S / Sc, s_rag = m.S % Sc;
  int n = 0;
  auto add = [&](std::int64_t jp, std::int64_t fg0, std::int64_t nfg, std::int64_t jq,
                 std::int64_t cg0, std::int64_t ncg) {
    if (jp <= 0 || nfg <= 0 || jq <= 0 || ncg <= 0) return;
    if (k_full > 0)
      cats[n++] = {jp, jq, Sc, fg0, nfg, cg0, ncg, 0, k_full, m.N * nfg * ncg * k_full};
    if (s_rag > 0) cats[n++] = {jp, jq, s_rag, fg0, nfg, cg0, ncg, k_full, 1, m.N * nfg * ncg};
  };
  add(m.p, 0, fg_full, m.q, 0, cg_full);
  add(m.p, 0, fg_full, q_rag, cg_full, 1);
  add(p_rag, fg_full, 1, m.q, 0, cg_full);
  add(p_rag, fg_full, 1, q_rag, cg_full, 1);
  // Insertion sort, stable: std::stable_sort allocates a buffer, and this runs for every tile
  // shape the mapping search prices (it was a seventh of a sweep's allocations).
  auto longer = [](const RsCategory& a, const RsCategory& b) {
    return a.p * a.q * a.s > b.p * b.q * b.s;
  };
  for (int i = 1; i < n; ++i)
    for (int j = i; j > 0 && longer(cats[j], cats[j - 1]); --j) std::swap(cats[j], cats[j - 1]);
  return n;
}

// Calls f(class) for every (segment, strip) pair: full-size segments / strips first, the
// ragged remainder last. The replication grid of a class is sized by its own footprint, so a
// ragged class may hold more sets.
template <class F>
void for_each_class(const RsMapping& m, F&& f) {
  for (std::int64_t r0 = 0; r0 < m.R; r0 += m.rows) {
    for (std::int64_t e0 = 0; e0 < m.E; e0 += m.cols) {
      RsClass k;
      k.r0 = r0;
      k.h = std::min(m.rows, m.R - r0);
      k.e0 = e0;
      k.w = std::min(m.cols, m.E - e0);
      k.vr = m.rows / k.h;
      k.vc = m.cols / k.w;
      f(k);
    }
  }
}

// Per class, each pass lasts as long as its first job (jobs run longest first), so a
// category costs (passes that start with one of its jobs) x (its job's length).
std::int64_t class_cycles(const RsMapping& m, const RsClass& k, const RsCategory* cats, int n) {
  const std::int64_t rep = k.rep();
  std::int64_t first = 0, cycles = 0;
  for (int i = 0; i < n; ++i) {
    const RsCategory& cat = cats[i];
    const std::int64_t last = first + cat.count;
    const std::int64_t starts = (last + rep - 1) / rep - (first + rep - 1) / rep;
    cycles += starts * m.job_cycles(cat.p, cat.q, cat.s, m.drain(k));
    first = last;
  }
  return cycles;
}

}  // namespace

std::int64_t RsMapping::compute_cycles() const {
  std::int64_t cycles = 0;
  for (const RsClass& k : classes)
    cycles += class_cycles(*this, k, categories.data(), static_cast<int>(categories.size()));
  return cycles;
}

namespace {

std::int64_t frame_cycles(const RsMapping& m) {
  std::array<RsCategory, 8> cats;
  const int n = rs_categories(m, cats);
  std::int64_t cycles = 0;
  for_each_class(m, [&](const RsClass& k) { cycles += class_cycles(m, k, cats.data(), n); });
  return cycles;
}

}  // namespace

std::int64_t rs_compute_cycles(const Op& op, const AcceleratorSpec& acc) {
  return frame_cycles(rs_frame(op, acc));
}

std::int64_t rs_tile_cycles(const NestProblem& p, const TileBox& box, const AcceleratorSpec& acc) {
  return frame_cycles(rs_frame(tile_conv(p, box), acc, p.op));
}

RsMapping map_rs(const Op& op, const AcceleratorSpec& acc) {
  RsMapping m = rs_frame(op, acc);
  const std::int64_t Sc = m.chunk_cols;
  // Column x of chunk k loads padded columns [x U + k S', x U + k S' + s); their union is
  // what an input row ever loads for the chunk.
  for (std::int64_t k = 0; k < m.chunks; ++k) {
    const std::int64_t s = std::min(Sc, m.S - k * Sc);
    m.chunk_real_cols.push_back(strided_union(m.F, m.U, k * Sc, s, m.P, m.P + m.W));
  }
  std::array<RsCategory, 8> cats;
  const int n = rs_categories(m, cats);
  m.categories.assign(cats.begin(), cats.begin() + n);
  for (const RsCategory& cat : m.categories) m.jobs_per_class += cat.count;
  for_each_class(m, [&](const RsClass& k) { m.classes.push_back(k); });
  m.psums_in_accumulator = accumulator_holds(m.N * m.M * m.E * m.F, acc);
  // Without chains, the job order whose neighbouring sets share more: compute, psums and
  // everything else are the same either way (a pass lasts as long as its category's jobs,
  // whatever their order).
  if (m.chained) return m;
  auto operand_reads = [&m] {
    std::int64_t words = 0;
    m.for_each_category([&](const RsClass& k, const RsCategory& cat, const RsCategoryReads& r) {
      words += r.input_words + r.weight_jobs * k.h * cat.p * cat.q * cat.s;
    });
    return words;
  };
  const std::int64_t by_filter = operand_reads();
  m.order = RsOrder::kImages;
  if (operand_reads() >= by_filter) m.order = RsOrder::kFilters;
  return m;
}

}  // namespace trainsim
