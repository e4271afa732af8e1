#include "mapping/search.h"

#include <algorithm>
#include <atomic>
#include <deque>
#include <limits>
#include <map>
#include <unordered_map>

#include "sim/core/error.h"
#include "sim/core/interrupt.h"

namespace trainsim {

namespace {

using Triple = std::array<std::int64_t, 3>;

// Tiles of one block's three dimensions, shrinking the first to its smallest before the
// second, and the second before the third.
std::vector<Triple> block_family(const std::array<std::vector<std::int64_t>, 3>& cands) {
  std::vector<Triple> f;
  const Triple top{cands[0].front(), cands[1].front(), cands[2].front()};
  const Triple low{cands[0].back(), cands[1].back(), cands[2].back()};
  for (std::int64_t t : cands[0]) f.push_back({t, top[1], top[2]});
  for (std::int64_t t : cands[1])
    if (t < top[1]) f.push_back({low[0], t, top[2]});
  for (std::int64_t t : cands[2])
    if (t < top[2]) f.push_back({low[0], low[1], t});
  return f;
}

constexpr std::array<std::array<int, 3>, 6> kOrders = {{{kIfmap, kFilter, kOfmap},
                                                        {kFilter, kIfmap, kOfmap},
                                                        {kIfmap, kOfmap, kFilter},
                                                        {kOfmap, kIfmap, kFilter},
                                                        {kFilter, kOfmap, kIfmap},
                                                        {kOfmap, kFilter, kIfmap}}};

// Full pricings per search at most (a tile walk each). Bounds are tight enough that a few
// suffice for nearly every op; the cap keeps pathological ties (thousands of candidates with
// equal bounds) from walking for long.
constexpr std::int64_t kMaxScored = 256;
// Pricings of energy and traffic alone (the tile classes, no walk) at most.
constexpr std::int64_t kMaxUntimed = 8192;

// K tiles smaller than the largest that fits are tried where that one has at most this many
// tiles. A smaller K tile can be faster (a smaller first fetch and last write-back, shorter
// drains) but rarely by much once an op has many tiles, while pricing its candidates walks
// many more tiles: on the zoo, trying them for every op changed training times by 0.15% and
// doubled the time the searches take.
constexpr std::int64_t kSmallerKTiles = 256;
// Whether the second sweep tries K tiles smaller than a block order's largest that fits,
// given how many tiles the op has at that one (the sweep and a hint's check ask alike).
constexpr bool smaller_k_tried(std::int64_t tiles_at_largest) {
  return tiles_at_largest <= kSmallerKTiles;
}

// Compute cycles summed over a mapping's tiles, the cheapest tile's and the dearest's, from the
// spans of its seven dimensions: every distinct tile is priced once.
std::int64_t sum_tile_cycles(const std::array<const std::vector<TileSpan>*, kNumDims>& sp,
                             MappingPricer& pricer, std::int64_t& min_cycles,
                             std::int64_t& max_cycles) {
  std::array<std::size_t, kNumDims> i{};
  std::int64_t total = 0;
  min_cycles = std::numeric_limits<std::int64_t>::max();
  max_cycles = 0;
  for (;;) {
    TileBox b;
    std::int64_t count = 1;
    for (int d = 0; d < kNumDims; ++d) {
      const TileSpan& s = (*sp[d])[i[d]];
      b.origin[d] = s.origin;
      b.extent[d] = s.extent;
      count *= s.count;
    }
    const std::int64_t c = pricer.tile_cycles(b);
    total += count * c;
    min_cycles = std::min(min_cycles, c);
    max_cycles = std::max(max_cycles, c);
    int d = kNumDims - 1;
    while (d >= 0 && ++i[d] == sp[d]->size()) i[d--] = 0;
    if (d < 0) break;
  }
  return total;
}

// The loop positions outermost first (TileWalk's order) and the dimension at each.
std::array<int, kNumDims> loop_dims(const BufferMapping& m) {
  std::array<int, kNumDims> dims{};
  int pos = 0;
  for (int block : m.order) {
    int n = 0;
    const auto& bd = block_dims(block, n);
    for (int i = 0; i < n; ++i) dims[pos++] = bd[i];
  }
  return dims;
}

// The loops of a mapping that iterate, outermost first, packed 3 bits a loop: two block
// orders that iterate the same loops in the same sequence are the same nest.
std::uint32_t nest_key(const BufferMapping& m, const std::array<std::int64_t, kNumDims>& trips) {
  std::uint32_t key = 0;
  for (int d : loop_dims(m))
    if (trips[d] > 1) key = key << 3 | static_cast<std::uint32_t>(d + 1);
  return key;
}

// The steps after the first, by the loop position that advances: when the loop at a position
// advances, every iterating loop inside it wraps, and each operand indexed by one of those
// dimensions moves to a new tile: a streamed input is fetched, and an output tile revisited
// while its reduction is under way (the advancing loop is a reduction loop) has its partial
// sums read back. Fills f.steps (words: the smallest such tiles) and f.fetching_steps.
void fetch_steps(const BufferMapping& m, const std::array<std::int64_t, kNumDims>& trips,
                 const OperandResidency& res,
                 const std::array<std::int64_t, kNumOperands>& min_words, ScheduleFacts& f) {
  const std::array<int, kNumDims> dims = loop_dims(m);
  std::int64_t outer = 1;
  f.fetching_steps = 0;
  for (int q = 0; q < kNumDims; ++q) {
    ScheduleFacts::Steps& st = f.steps[static_cast<std::size_t>(q)];
    st = {};
    const int dq = dims[q];
    if (trips[dq] <= 1) continue;
    std::array<bool, kNumOperands> changed{false, false, false};
    for (int j = q; j < kNumDims; ++j)
      if (trips[dims[j]] > 1)
        for (int o = 0; o < kNumOperands; ++o)
          if (irrelevant_operand(dims[j]) != o) changed[o] = true;
    for (int o : {kIfmap, kFilter})
      if (changed[o] && res.kind[o] == OperandResidency::kStream) st.words += min_words[o];
    if (changed[kOfmap] && res.kind[kOfmap] == OperandResidency::kStream &&
        irrelevant_operand(dq) == kOfmap)
      st.words += min_words[kOfmap];
    st.count = outer * (trips[dq] - 1);
    if (st.words > 0) f.fetching_steps += st.count;
    outer *= trips[dq];
  }
}

// Words of each operand's smallest tile (a ragged last tile, or one over padding).
std::array<std::int64_t, kNumOperands> min_tile_words(const NestProblem& p,
                                                      const std::array<std::int64_t, kNumDims>& t,
                                                      const NestSums& s) {
  auto least = [&](int d) { return p.extent[d] % t[d] == 0 ? t[d] : p.extent[d] % t[d]; };
  return {least(kDimN) * least(kDimC) * s.rows.min * s.cols.min,
          p.filter_elsewhere ? 0 : least(kDimK) * least(kDimC) * s.k_rows.min * s.k_cols.min,
          least(kDimN) * least(kDimK) * least(kDimP) * least(kDimQ)};
}

// Words fetched before the first tile and written after the last.
void first_and_last(const NestProblem& p, const BufferMapping& m, const MappingCost& c,
                    const OperandResidency& res,
                    const std::array<std::int64_t, kNumOperands>& total, ScheduleFacts& f) {
  TileBox first, last;
  for (int d = 0; d < kNumDims; ++d) {
    first.extent[d] = m.tile[d];
    last.origin[d] = (c.trips[d] - 1) * m.tile[d];
    last.extent[d] = p.extent[d] - last.origin[d];
  }
  f.first_fetch_words = 0;
  for (int o : {kIfmap, kFilter}) {
    if (res.kind[o] == OperandResidency::kStream)
      f.first_fetch_words += p.tile_words(o, first);
    else if (res.kind[o] == OperandResidency::kLoadKeep)
      f.first_fetch_words += total[o];
  }
  const bool written = res.kind[kOfmap] == OperandResidency::kStream ||
                       (res.write_out && res.kind[kOfmap] == OperandResidency::kKeep);
  f.last_write_words = written ? p.tile_words(kOfmap, last) : 0;
}

void fill_traffic(const MappingCost& c, ScheduleFacts& f) {
  f.tiles = c.tiles;
  f.read_words = 0;
  for (std::int64_t w : c.dram_read_words) f.read_words += w;
  f.dram_words = c.dram_words();
}

// Whether score `a` beats `b` under the objective (the first priced wins exact ties).
bool better(const MappingScore& a, const MappingScore& b, MappingObjective objective) {
  switch (objective) {
    case MappingObjective::kTime:
      if (a.cycles != b.cycles) return a.cycles < b.cycles;
      if (a.dram_words != b.dram_words) return a.dram_words < b.dram_words;
      return a.energy < b.energy;
    case MappingObjective::kEnergy:
      if (a.energy != b.energy) return a.energy < b.energy;
      if (a.dram_words != b.dram_words) return a.dram_words < b.dram_words;
      return a.cycles < b.cycles;
    default: {
      const double ea = a.energy * static_cast<double>(a.cycles),
                   eb = b.energy * static_cast<double>(b.cycles);
      if (ea != eb) return ea < eb;
      return a.dram_words < b.dram_words;
    }
  }
}

std::string tile_text(const NestProblem& p, const std::array<std::int64_t, kNumDims>& t) {
  std::string s;
  for (int d = 0; d < kNumDims; ++d)
    if (dim_name(d, p.gemm)[0] != '\0')
      s += std::string(s.empty() ? "" : " ") + dim_name(d, p.gemm) + "=" + std::to_string(t[d]);
  return s;
}

[[noreturn]] void fail_fit(const NestProblem& p, const OperandResidency& res,
                           const BufferCapacity& cap, const AcceleratorSpec& acc,
                           const std::array<std::int64_t, kNumDims>& smallest) {
  // The smallest mapping the constraints allow says which level is too small.
  BufferMapping m;
  for (int d = 0; d < kNumDims; ++d) m.tile[d] = smallest[d];
  const MappingCost c = analyze_mapping(p, m, res, cap);
  std::string what = "buffer mapping of " + p.op.describe() + ": ";
  if (cap.shared) {
    what += "even tiles of " + tile_text(p, m.tile) + " need " +
            std::to_string(c.need_words[0] + c.need_words[1] + c.need_words[2]) + " words (ifmap " +
            std::to_string(c.need_words[0]) + ", filter " + std::to_string(c.need_words[1]) +
            ", ofmap " + std::to_string(c.need_words[2]) + "), but " + cap.level_name(kIfmap, acc) +
            " of '" + acc.name + "' holds " + std::to_string(cap.total_words);
  } else {
    int o = 0;
    while (o < kNumOperands - 1 && c.need_words[o] <= cap.partition_words[o]) ++o;
    what += "even tiles of " + tile_text(p, m.tile) + " need " + std::to_string(c.need_words[o]) +
            " words of " + operand_name(o) + ", but " + cap.level_name(o, acc) + " of '" +
            acc.name + "' holds " + std::to_string(cap.partition_words[o]);
  }
  throw UserError(what + " words");
}

}  // namespace

bool MappingConstraints::empty() const {
  if (stationary >= 0) return false;
  for (std::int64_t t : tile)
    if (t > 0) return false;
  return true;
}

std::int64_t tile_for_trips(std::int64_t extent, std::int64_t trips, std::int64_t granule) {
  std::int64_t t = (extent + trips - 1) / trips;
  if (granule > 1 && t < extent) t = std::min(extent, (t + granule - 1) / granule * granule);
  return t;
}

std::vector<std::int64_t> tile_candidates(std::int64_t extent, std::int64_t granule) {
  std::vector<std::int64_t> out;
  out.reserve(64);  // 16 + 4 log2(extent / 16) at most: up to 2^27 without growing
  auto add_trips = [&](std::int64_t trips) {
    out.push_back(tile_for_trips(extent, trips, granule));
  };
  std::int64_t trips = 1;
  for (; trips <= 16 && trips <= extent; ++trips) add_trips(trips);
  for (; trips < extent; trips = trips + std::max<std::int64_t>(1, trips / 4)) add_trips(trips);
  add_trips(extent);
  // The smallest tile: one element, or one granule (a dataflow's tiles never split the
  // groups its array or register files work on at once).
  out.push_back(std::min(extent, std::max<std::int64_t>(1, granule)));
  std::sort(out.begin(), out.end(), std::greater<>());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

namespace {

// Appends dimension d's distinct tiles of `t` to `out` (tile_spans and tile_classes both cut
// dimensions this way; tile_classes keeps every dimension's in one vector).
void append_tile_spans(const NestProblem& p, int d, std::int64_t t, std::vector<TileSpan>& out) {
  const std::int64_t e = p.extent[d];
  const RealAxis* dilated = d == kDimR && p.k_rows.step > 1   ? &p.k_rows
                            : d == kDimS && p.k_cols.step > 1 ? &p.k_cols
                                                              : nullptr;
  if (dilated) {
    // Tiles of equal extent and equal stored positions cost the same on the array.
    const std::size_t first = out.size();
    for (std::int64_t o = 0; o < e; o += t) {
      const std::int64_t x = std::min(t, e - o), real = dilated->real_in(o, x);
      bool merged = false;
      for (std::size_t i = first; i < out.size() && !merged; ++i)
        if (out[i].extent == x && dilated->real_in(out[i].origin, x) == real)
          ++out[i].count, merged = true;
      if (!merged) out.push_back({o, x, 1});
    }
    return;
  }
  if (e / t > 0) out.push_back({0, t, e / t});
  if (e % t > 0) out.push_back({e / t * t, e % t, 1});
}

}  // namespace

std::vector<TileSpan> tile_spans(const NestProblem& p, int d, std::int64_t t) {
  std::vector<TileSpan> out;
  out.reserve(2);
  append_tile_spans(p, d, t, out);
  return out;
}

void block_tiles(const NestProblem& p, TileBlock block,
                 const std::array<const std::vector<TileSpan>*, 3>& spans,
                 std::vector<BlockTile>& tiles) {
  static const std::vector<TileSpan> one{{0, 1, 1}};
  const std::vector<TileSpan>&x = *spans[0], &y = spans[1] ? *spans[1] : one,
        &z = spans[2] ? *spans[2] : one;
  const bool reduction = block == TileBlock::kReduction;
  tiles.clear();
  for (const TileSpan& a : x)
    for (const TileSpan& b : y)
      for (const TileSpan& c : z) {
        BlockTile t;
        t.extent = {a.extent, b.extent, c.extent};
        t.stored = a.extent * (reduction ? p.k_rows.real_in(b.origin, b.extent) : b.extent) *
                   (reduction ? p.k_cols.real_in(c.origin, c.extent) : c.extent);
        t.count = a.count * b.count * c.count;
        tiles.push_back(t);
      }
}

std::pair<std::int64_t, std::int64_t> first_fetch_and_last_write(const NestProblem& p,
                                                                 const BufferMapping& m,
                                                                 const MappingCost& c,
                                                                 const OperandResidency& res) {
  ScheduleFacts f;
  first_and_last(p, m, c, res, p.total_words(), f);
  return {f.first_fetch_words, f.last_write_words};
}

namespace {

// Every tile's compute cycles summed, the cheapest tile's and the dearest's.
struct ComputeSums {
  std::int64_t total = 0, min = 0, max = 0;
};

ComputeSums compute_sums(const std::array<const std::vector<TileSpan>*, kNumDims>& sp,
                         MappingPricer& pricer) {
  ComputeSums s;
  s.total = sum_tile_cycles(sp, pricer, s.min, s.max);
  return s;
}

// schedule_facts() with the compute sums and the axis sums given (the search keeps them per
// tiling and per tile size).
ScheduleFacts facts_of(const NestProblem& p, const BufferMapping& m, const MappingCost& c,
                       const OperandResidency& res, const ComputeSums& compute,
                       const NestSums& sums) {
  ScheduleFacts f;
  f.compute_cycles = compute.total;
  f.min_tile_cycles = compute.min;
  f.max_tile_cycles = compute.max;
  first_and_last(p, m, c, res, sums.total, f);
  fill_traffic(c, f);
  fetch_steps(m, c.trips, res, min_tile_words(p, m.tile, sums), f);
  return f;
}

}  // namespace

ScheduleFacts schedule_facts(const NestProblem& p, const BufferMapping& m, const MappingCost& c,
                             const OperandResidency& res, MappingPricer& pricer) {
  std::array<std::vector<TileSpan>, kNumDims> spans;
  std::array<const std::vector<TileSpan>*, kNumDims> sp{};
  for (int d = 0; d < kNumDims; ++d) {
    spans[d] = tile_spans(p, d, m.tile[d]);
    sp[d] = &spans[d];
  }
  return facts_of(p, m, c, res, compute_sums(sp, pricer), nest_sums(p, m));
}

namespace {

std::atomic<bool> g_shortcuts{true};

// Full pricings before the first sweep's end, at most (see `early` below).
constexpr std::int64_t kMaxEarly = 6;

// The search; `shortcuts`: with the cut-off before the first sweep ends, the traffic the
// second sweep takes from the first and the compute floor of its K tiles (each below), which
// change how many candidates are analysed, never which is chosen; then it gives nothing
// (nullopt) when a budget came near enough to binding that the choice might differ from the
// search without them.
std::optional<SearchResult> search(const NestProblem& p, const OperandResidency& res,
                                   const BufferCapacity& cap, const AcceleratorSpec& acc,
                                   const std::array<std::int64_t, kNumDims>& granule,
                                   const MappingConstraints& pinned, MappingObjective objective,
                                   MappingPricer& pricer, bool shortcuts,
                                   const BufferMapping* hint) {
  std::array<std::vector<std::int64_t>, kNumDims> cands;
  for (int d = 0; d < kNumDims; ++d) {
    if (pinned.tile[d] > 0) {
      if (pinned.tile[d] > p.extent[d])
        throw UserError("buffer mapping of " + p.op.describe() + ": tile " + dim_name(d, p.gemm) +
                        "=" + std::to_string(pinned.tile[d]) + " is larger than the dimension (" +
                        std::to_string(p.extent[d]) + ")");
      cands[d] = {pinned.tile[d]};
    } else {
      cands[d] = tile_candidates(p.extent[d], granule[d]);
    }
  }
  const std::vector<Triple> fam_w = block_family({cands[kDimN], cands[kDimP], cands[kDimQ]});
  const std::vector<Triple> fam_o = block_family({cands[kDimC], cands[kDimR], cands[kDimS]});
  const std::vector<std::int64_t>& cand_k = cands[kDimK];
  std::array<std::int64_t, kNumDims> smallest{};
  for (int d = 0; d < kNumDims; ++d) smallest[d] = cands[d].back();

  // Sums depend on one or two tile sizes each: computed once per size, not per candidate.
  std::map<std::pair<std::int64_t, std::int64_t>, AxisSums> row_cache, col_cache;
  std::map<std::int64_t, AxisSums> krow_cache, kcol_cache;
  auto window = [&](decltype(row_cache)& cache, const RealAxis& axis, int out_dim, int k_dim,
                    std::int64_t t_out, std::int64_t t_k) -> const AxisSums& {
    auto key = std::make_pair(t_out, t_k);
    auto it = cache.find(key);
    if (it == cache.end())
      it = cache
               .emplace(key,
                        window_sums(axis, p.extent[out_dim], t_out, p.stride, p.extent[k_dim], t_k))
               .first;
    return it->second;
  };
  auto kernel = [&](decltype(krow_cache)& cache, const RealAxis& axis, int dim,
                    std::int64_t t) -> const AxisSums& {
    auto it = cache.find(t);
    if (it == cache.end()) it = cache.emplace(t, kernel_sums(axis, p.extent[dim], t)).first;
    return it->second;
  };
  // The spans of each (dimension, tile size) once: a deque keeps them in place as it grows,
  // and a dimension has a few dozen tile sizes at most, so a scan finds them.
  std::deque<std::vector<TileSpan>> span_store;
  std::array<std::vector<std::pair<std::int64_t, const std::vector<TileSpan>*>>, kNumDims>
      span_index;
  for (int d = 0; d < kNumDims; ++d) span_index[d].reserve(cands[d].size());
  auto spans = [&](int d, std::int64_t t) -> const std::vector<TileSpan>* {
    auto& index = span_index[static_cast<std::size_t>(d)];
    for (const auto& [size, found] : index)
      if (size == t) return found;
    span_store.push_back(tile_spans(p, d, t));
    index.emplace_back(t, &span_store.back());
    return &span_store.back();
  };
  const std::array<std::int64_t, kNumOperands> total_words = p.total_words();
  auto sums_of = [&](const Triple& w, const Triple& o) {
    NestSums s;
    s.total = total_words;
    s.rows = window(row_cache, p.in_rows, kDimP, kDimR, w[1], o[1]);
    s.cols = window(col_cache, p.in_cols, kDimQ, kDimS, w[2], o[2]);
    s.k_rows = kernel(krow_cache, p.k_rows, kDimR, o[1]);
    s.k_cols = kernel(kcol_cache, p.k_cols, kDimS, o[2]);
    return s;
  };
  // Trip counts of every candidate, from its blocks' (divisions, once per tile size).
  auto trips_of_triple = [&](const Triple& t, int d0, int d1, int d2) {
    return Triple{(p.extent[d0] + t[0] - 1) / t[0], (p.extent[d1] + t[1] - 1) / t[1],
                  (p.extent[d2] + t[2] - 1) / t[2]};
  };
  std::vector<Triple> trips_w, trips_o;
  for (const Triple& t : fam_w) trips_w.push_back(trips_of_triple(t, kDimN, kDimP, kDimQ));
  for (const Triple& t : fam_o) trips_o.push_back(trips_of_triple(t, kDimC, kDimR, kDimS));
  std::vector<std::int64_t> trips_k;
  for (std::int64_t t : cand_k) trips_k.push_back((p.extent[kDimK] + t - 1) / t);
  auto tiles_of = [&](const std::array<std::int64_t, kNumDims>& trips) {
    std::int64_t n = 1;
    for (std::int64_t t : trips) n *= t;
    return n;
  };
  auto trips_of = [&](std::size_t wi, std::size_t oi, std::size_t ki) {
    const Triple &w = trips_w[wi], &o = trips_o[oi];
    return std::array<std::int64_t, kNumDims>{w[0], trips_k[ki], o[0], w[1], w[2], o[1], o[2]};
  };
  auto mapping_of = [&](std::size_t wi, std::size_t oi, std::size_t ki, int order) {
    BufferMapping m;
    const Triple &w = fam_w[wi], &o = fam_o[oi];
    m.tile = {w[0], cand_k[ki], o[0], w[1], w[2], o[1], o[2]};
    m.order = kOrders[static_cast<std::size_t>(order)];
    return m;
  };
  // The tile spans of every candidate, from its blocks' (looked up once per tile size, not
  // per candidate: the lookups were a tenth of the search).
  using BlockSpans = std::array<const std::vector<TileSpan>*, 3>;
  std::vector<BlockSpans> spans_w, spans_o;
  for (const Triple& t : fam_w)
    spans_w.push_back({spans(kDimN, t[0]), spans(kDimP, t[1]), spans(kDimQ, t[2])});
  for (const Triple& t : fam_o)
    spans_o.push_back({spans(kDimC, t[0]), spans(kDimR, t[1]), spans(kDimS, t[2])});
  std::vector<const std::vector<TileSpan>*> spans_k;
  for (std::int64_t t : cand_k) spans_k.push_back(spans(kDimK, t));
  auto spans_of = [&](std::size_t wi, std::size_t oi, std::size_t ki) {
    const BlockSpans &w = spans_w[wi], &o = spans_o[oi];
    return std::array<const std::vector<TileSpan>*, kNumDims>{w[0], spans_k[ki], o[0], w[1],
                                                              w[2], o[1],        o[2]};
  };

  // Every candidate that fits, with its lower bounds. Block orders that iterate the same loops
  // in the same sequence are the same nest: only the first of them is kept.
  struct Candidate {
    std::uint32_t wi, oi, ki;
    std::int32_t order;
    std::int64_t cycles_bound, dram_words, tiles;
    double energy_bound;
    bool refined;  // its bounds are as refine() leaves them
    std::optional<MappingScore> score;
  };
  std::vector<Candidate> all;
  SearchResult best;
  // A candidate's price; with a deadline, only as far as needed to know it exceeds it (an
  // inexact price, priced again if a later question needs more).
  // Untimed pricings (energy and traffic) cost no tile walk: many more are allowed.
  std::int64_t untimed = 0;
  auto score_of = [&](Candidate& c, std::int64_t deadline,
                      bool timed = true) -> const MappingScore& {
    if (!c.score || (timed && !c.score->timed) ||
        (!c.score->exact && c.score->cycles <= deadline)) {
      const BufferMapping m = mapping_of(c.wi, c.oi, c.ki, c.order);
      c.score = pricer.score(m,
                             analyze_mapping(p, m, trips_of(c.wi, c.oi, c.ki), res, cap,
                                             sums_of(fam_w[c.wi], fam_o[c.oi])),
                             deadline, timed);
      ++(timed ? best.scored : untimed);
    }
    return *c.score;
  };
  constexpr std::int64_t kNoDeadline = std::numeric_limits<std::int64_t>::max();
  // What the second sweep asks of a block order's largest K tile that fits: its traffic's
  // bounds (the channel's cycles, the energy) and its tiles. The first sweep analyses that
  // candidate already (or the same nest in an earlier order: the same cost), so it keeps
  // them for the second (per (W, O) pair and block order; `known` false: not analysed).
  struct TrafficFacts {
    bool known = false;
    std::int64_t channel = 0, tiles = 0;
    double energy = 0;
  };
  // Per K tile of the current (W, O) pair: what does not depend on the block order.
  struct PerK {
    bool facts = false;
    std::int64_t compute = 0, min_tile = 0, max_tile = 0, first = 0, last = 0;
    // Nests already considered (nest_key), at most one per block order: a fixed array, as
    // this is reset for every (W, O) pair.
    std::array<std::uint32_t, kOrders.size()> seen{};
    std::array<TrafficFacts, kOrders.size()> seen_traffic{};
    std::size_t seen_count = 0;
    // The time objective's bound on every block order's cycles at this K tile, with no
    // traffic (compute_floor); -1: not computed.
    std::int64_t compute_floor = -1;
  };
  // The time objective's floor on the compute of every candidate of a W tile, of a (W, O)
  // pair, or of a (W, O, K) tiling, whatever its other tiles: the product of the blocks'
  // factors (MappingPricer::compute_floor_factor), each block's own where it is known and
  // its least otherwise. A candidate's cycles are at least its compute, and so are its
  // bounds (cycles_bound counts the compute in full), so a floor above the cut-off rules out
  // every candidate it covers: none can be the fastest or come within the tolerance of it,
  // and none would be priced, as each one's bound (its compute summed in full) exceeds it.
  // A row or pair so ruled out is not swept at all (the second sweep visits only pairs the
  // first found a K tile for).
  const bool floors = shortcuts && objective == MappingObjective::kTime;
  std::array<double, 3> least{};
  if (floors)
    for (TileBlock b : {TileBlock::kPixels, TileBlock::kReduction, TileBlock::kFilters})
      least[static_cast<std::size_t>(b)] = pricer.compute_floor_factor(b, nullptr);
  const bool have_floors = least[0] > 0 && least[1] > 0 && least[2] > 0;
  std::vector<double> floor_w(fam_w.size(), -1), floor_o(fam_o.size(), -1),
      floor_k(cand_k.size(), -1);
  // A block's factor for tile `i` of its family, asked once.
  auto factor = [&](std::vector<double>& memo, std::size_t i, TileBlock b, const BlockSpans& sp) {
    if (memo[i] < 0) memo[i] = pricer.compute_floor_factor(b, &sp);
    return memo[i];
  };
  auto factor_w = [&](std::size_t wi) {
    return factor(floor_w, wi, TileBlock::kPixels, spans_w[wi]);
  };
  auto factor_o = [&](std::size_t oi) {
    return factor(floor_o, oi, TileBlock::kReduction, spans_o[oi]);
  };
  auto factor_k = [&](std::size_t ki) {
    return factor(floor_k, ki, TileBlock::kFilters, BlockSpans{spans_k[ki], nullptr, nullptr});
  };
  std::vector<PerK> per_k(cand_k.size());
  // The per-K facts of the (W, O) pair `pk` belongs to (they do not depend on the order).
  auto facts_at = [&](PerK& pk, std::size_t wi, std::size_t oi, std::size_t k,
                      const BufferMapping& m, const std::array<std::int64_t, kNumDims>& trips,
                      const NestSums& sums) {
    if (pk.facts) return;
    // Every distinct tile's compute, exactly. A floor per tile (its MACs over the PEs) costs
    // less to sum, but row stationary's passes and register-file groups leave its tiles 1-20%
    // above their floor, so most candidates passed the cut-off on it and were refined one by
    // one later: on a VGG-16 point (rs, 24 x 24, 216 KiB), 46,181 candidates kept and 32,077
    // refined, against 16,899 and 1,038 with the exact sums, and the search 30% faster.
    pk.compute = sum_tile_cycles(spans_of(wi, oi, k), pricer, pk.min_tile, pk.max_tile);
    MappingCost c;
    c.trips = trips;  // all first_and_last asks of the cost
    ScheduleFacts fl;
    first_and_last(p, m, c, res, sums.total, fl);
    pk.first = fl.first_fetch_words;
    pk.last = fl.last_write_words;
    pk.facts = true;
  };
  // What a candidate must not exceed to matter, from the best price so far: time, the
  // tolerance above the fastest; energy and edp, the best (an equal one may win on traffic).
  std::int64_t cut_cycles = std::numeric_limits<std::int64_t>::max();
  double cut_energy = std::numeric_limits<double>::infinity();
  double cut_edp = std::numeric_limits<double>::infinity();
  auto tighten = [&](const MappingScore& sc) {
    if (!sc.exact) return;  // (an untimed price is exact in energy, which is all it tightens)
    if (objective == MappingObjective::kTime)
      cut_cycles = std::min(
          cut_cycles,
          sc.cycles + static_cast<std::int64_t>(static_cast<double>(sc.cycles) * kTimeTolerance));
    if (objective == MappingObjective::kEnergy) cut_energy = std::min(cut_energy, sc.energy);
    if (objective == MappingObjective::kEdp)
      cut_edp = std::min(cut_edp, sc.energy * static_cast<double>(sc.cycles));
  };
  // Adds candidate (wi, oi, k, order), with its bounds, if it fits, is a new nest and its
  // bounds do not rule it out (cheapest first). Returns kTrafficCut when its traffic alone
  // rules it out (then so it does every smaller K tile's of the same order: they move at
  // least as much), else kOther.
  enum Outcome { kOther, kTrafficCut };
  auto consider = [&](std::size_t wi, std::size_t oi, std::size_t k, int order,
                      const NestSums& sums, TrafficFacts* keep = nullptr) {
    const BufferMapping m = mapping_of(wi, oi, k, order);
    const std::array<std::int64_t, kNumDims> trips = trips_of(wi, oi, k);
    // A nest already seen (the same loops iterating in the same sequence) has the same cost:
    // it fitted, and it is the same candidate, so it needs no analysis.
    PerK& pk = per_k[k];
    const std::uint32_t key = nest_key(m, trips);
    const auto seen_end = pk.seen.begin() + static_cast<std::ptrdiff_t>(pk.seen_count);
    const auto seen_at = std::find(pk.seen.begin(), seen_end, key);
    if (seen_at != seen_end) {
      if (keep) *keep = pk.seen_traffic[static_cast<std::size_t>(seen_at - pk.seen.begin())];
      return kOther;
    }
    const MappingCost c = analyze_mapping(p, m, trips, res, cap, sums);
    if (!c.fits) return kOther;
    const double energy_bound = pricer.energy_bound(c);
    ScheduleFacts f;
    fill_traffic(c, f);
    const std::int64_t channel = pricer.cycles_bound(f);
    pk.seen_traffic[pk.seen_count] = {true, channel, c.tiles, energy_bound};
    if (keep) *keep = pk.seen_traffic[pk.seen_count];
    pk.seen[pk.seen_count++] = key;
    if (energy_bound > cut_energy) return kTrafficCut;
    if (channel > cut_cycles) return kTrafficCut;  // the channel alone
    facts_at(pk, wi, oi, k, m, trips, sums);
    f.compute_cycles = pk.compute;
    f.min_tile_cycles = pk.min_tile;
    f.max_tile_cycles = pk.max_tile;
    f.first_fetch_words = pk.first;
    f.last_write_words = pk.last;
    // The latency of every fetch only binds if it can outweigh the compute: counting the
    // steps that certainly fetch is left out otherwise.
    f.fetching_steps = c.tiles - 1;
    const std::int64_t with_all = pricer.cycles_bound(f);
    f.fetching_steps = 0;
    std::int64_t cycles_bound = pricer.cycles_bound(f);
    if (with_all > cycles_bound) {
      fetch_steps(m, c.trips, res, min_tile_words(p, m.tile, sums), f);
      cycles_bound = pricer.cycles_bound(f);
    }
    if (cycles_bound > cut_cycles) return kOther;
    if (energy_bound * static_cast<double>(cycles_bound) > cut_edp) return kOther;
    all.push_back({static_cast<std::uint32_t>(wi), static_cast<std::uint32_t>(oi),
                   static_cast<std::uint32_t>(k), order, cycles_bound, c.dram_words(), c.tiles,
                   energy_bound, false, std::nullopt});
    return kOther;
  };

  // A candidate's bound on the objective's first key.
  auto first_key = [&](const Candidate& c) {
    return objective == MappingObjective::kTime ? static_cast<double>(c.cycles_bound)
           : objective == MappingObjective::kEnergy
               ? c.energy_bound
               : c.energy_bound * static_cast<double>(c.cycles_bound);
  };
  // The cut-off before the first sweep's end (`early`). The first sweep keeps every candidate
  // that fits; without a cut-off, 83-97% of them are then ruled out by the price of the
  // best-bounded one. So after each (W, O) pair of the first sweep, the best-bounded
  // candidate the pair added is priced in full (kNoDeadline) when its bound is well below the
  // best such price so far, and the cut-off tightened with it (at most kMaxEarly times), so
  // that the rest of the sweep bounds and keeps only candidates whose bound is within it.
  //
  // Why the choice is the same as without it. Call E a candidate priced early (it is in
  // `all`: it was added before it was priced, and nothing is ever removed). A candidate left
  // out of `all` by E's cut-off has a bound on the objective's first key above what E costs
  // (time: E's cycles plus the tolerance; energy: E's energy; edp: their product), and every
  // candidate left in is one the search without it keeps too (the same sweeps in the same
  // order, each candidate added by the same block order: the nests seen are recorded before
  // the cut-off is asked, and a smaller K tile moves no less, so a K sweep that stops early
  // only skips candidates the cut-off would rule out); so `all` is the search's `all` without
  // some candidates above the cut-off, in the same order (ties between bounds are broken by
  // index, and so the same). The branch and bound takes the candidates in increasing order of
  // their refined bounds (refine() only raises a bound: the fetching steps of every loop, a
  // priced energy, each at least what the sweep's bound assumed), so
  // E (its bound at most its price) comes up before any candidate left out, and after E the
  // best so far costs no more than E: the search without the cut-off stops at the first
  // candidate left out (time: its bound exceeds the fastest; energy, edp: the best key)
  // having priced the same candidates in the same order, and the candidates within the time
  // tolerance of the fastest are the same too (their bounds are within the band, at most E's
  // cut-off). The first sweep's best-bounded candidate, whose price gives the second sweep's
  // cut-off, is the same one (its bound is at most E's). What can differ is how many
  // candidates are priced (E priced early, and not again) and so when the caps on pricings
  // (kMaxScored, kMaxUntimed) bind: without the cut-off, E is priced up to three times
  // instead of once (in the branch and bound, in the band, and as the result) and the first
  // sweep's best-bounded candidate once more, so when the pricings come within four per early
  // pricing, plus one, of a cap, or a cap binds, or an early price is below its own bound (a
  // bound that is not one), the search is run again without the shortcuts and its result
  // taken (tests/unit/test_mapping_shortcuts.cpp compares the two).
  std::int64_t early_priced = 0;
  double early_best = std::numeric_limits<double>::infinity();
  bool early_invalid = false;
  auto price_early = [&](std::size_t from) {
    if (from >= all.size()) return;
    std::size_t top = from;
    for (std::size_t i = from + 1; i < all.size(); ++i)
      if (first_key(all[i]) < first_key(all[top])) top = i;
    // Only a bound well below the best price so far is likely to tighten the cut-off.
    if (!(first_key(all[top]) < early_best * 0.8)) return;
    const MappingScore& sc =
        score_of(all[top], kNoDeadline, objective != MappingObjective::kEnergy);
    ++early_priced;
    const double price = objective == MappingObjective::kTime ? static_cast<double>(sc.cycles)
                         : objective == MappingObjective::kEnergy
                             ? sc.energy
                             : sc.energy * static_cast<double>(sc.cycles);
    if (!sc.exact || price < first_key(all[top])) early_invalid = true;
    early_best = std::min(early_best, price);
    tighten(sc);
  };

  // Two sweeps over the (W, O) pairs and block orders. The first takes the largest K tile that
  // fits (the least traffic of the pair: a smaller one cannot move less); pricing the
  // best-bounded of those gives a cut-off that rules out most of the second, the smaller K
  // tiles (kSmallerKTiles).
  const std::size_t orders = kOrders.size();
  // What the first sweep learns at a (W, O) pair, per block order, that the second reads: the
  // largest K tile that fits (cand_k.size(): none) and its traffic. Kept for the pairs the
  // first sweep reaches only (a slot each, in the order reached): a search has thousands of
  // pairs, most ruled out whole by their compute floor, and setting up every pair's facts
  // was a tenth of the search's own time.
  struct PairFacts {
    std::array<std::size_t, kOrders.size()> first_fit;
    std::array<TrafficFacts, kOrders.size()> first_traffic{};
  };
  std::vector<std::int32_t> pair_slot(fam_w.size() * fam_o.size(), -1);
  std::vector<PairFacts> pair_facts;
  auto reached = [&](std::size_t wi, std::size_t oi) -> PairFacts* {
    const std::int32_t slot = pair_slot[wi * fam_o.size() + oi];
    return slot < 0 ? nullptr : &pair_facts[static_cast<std::size_t>(slot)];
  };
  auto reach = [&](std::size_t wi, std::size_t oi) -> PairFacts& {
    std::int32_t& slot = pair_slot[wi * fam_o.size() + oi];
    if (slot < 0) {
      slot = static_cast<std::int32_t>(pair_facts.size());
      pair_facts.emplace_back();
      pair_facts.back().first_fit.fill(cand_k.size());
    }
    return pair_facts[static_cast<std::size_t>(slot)];
  };
  // The K tile the first sweep takes at a (W, O) pair and block order: the largest that fits
  // (an index into cand_k; cand_k.size(): none fits). Its fit tests are kept per pair
  // (`FitTests`, reset for each): whether a K tile fits depends on the block order only
  // through whether the output accumulates (output_accumulates), and that only through
  // whether the K loop iterates (it does at every K tile but the whole dimension, index 0),
  // so the six orders share the fit tests and the two bisections, one per value of it.
  // The pair's tiles with a K tile of one (`unit`: the filter's and the output's words are
  // proportional to the K tile, the input's do not depend on it) and which operands change
  // besides through the K loop, so that a fit test is a few products (words_fit).
  struct FitTests {
    std::vector<std::int8_t> known;          // per (K tile, accumulates): -1 unknown
    std::array<std::size_t, 2> split{0, 0};  // the first K tile that fits; 0: not bisected yet
    bool have_unit = false;
    std::array<std::int64_t, kNumOperands> unit{};
    unsigned changes = 0;
    void reset() {
      std::fill(known.begin(), known.end(), std::int8_t{-1});
      split = {0, 0};
      have_unit = false;
    }
  };
  const unsigned k_changes = operand_changes([] {
    std::array<std::int64_t, kNumDims> t;
    t.fill(1);
    t[kDimK] = 2;
    return t;
  }());
  FitTests fit_tests{std::vector<std::int8_t>(2 * cand_k.size(), -1)};
  auto first_fit_of = [&](std::size_t wi, std::size_t oi, int order, const NestSums& sums,
                          FitTests& ft) {
    auto fits_at = [&](std::size_t k, bool accumulates) {
      std::int8_t& known = ft.known[2 * k + accumulates];
      if (known < 0) {
        if (!ft.have_unit) {
          std::array<std::int64_t, kNumDims> tile = mapping_of(wi, oi, 0, 0).tile,
                                             trips = trips_of(wi, oi, 0);
          tile[kDimK] = 1;
          trips[kDimK] = 1;
          ft.unit = largest_tile_words(p, tile, sums);
          ft.changes = operand_changes(trips);
          ft.have_unit = true;
        }
        const std::int64_t t = cand_k[k];
        known = words_fit({ft.unit[kIfmap], ft.unit[kFilter] * t, ft.unit[kOfmap] * t},
                          ft.changes | (trips_k[k] > 1 ? k_changes : 0u), accumulates, sums.total,
                          res, cap)
                    ? 1
                    : 0;
      }
      return known == 1;
    };
    // The buffer a mapping needs grows with the K tile, except that with the whole K
    // dimension in one tile the filter and ofmap tiles may stop changing and need one copy
    // instead of two: fitting is monotone below it, so the first K tile that fits is found by
    // bisection, and every smaller one fits too.
    auto first_split = [&](bool accumulates) {
      std::size_t& lo = ft.split[accumulates];
      if (lo > 0) return lo;
      lo = 1;
      for (std::size_t hi = cand_k.size(); lo < hi;) {
        const std::size_t mid = (lo + hi) / 2;
        if (fits_at(mid, accumulates))
          hi = mid;
        else
          lo = mid + 1;
      }
      return lo;
    };
    // Which blocks iterate at K tile k (by the operand they do not index: the filters' K,
    // the pixels, the reduction), from the block families' trip counts.
    auto accumulates_at = [&](std::size_t k) {
      if (res.kind[kOfmap] == OperandResidency::kKeep) return false;
      const Triple &tw = trips_w[wi], &to = trips_o[oi];
      return output_accumulates(kOrders[static_cast<std::size_t>(order)],
                                {trips_k[k] > 1, tw[0] > 1 || tw[1] > 1 || tw[2] > 1,
                                 to[0] > 1 || to[1] > 1 || to[2] > 1});
    };
    return fits_at(0, accumulates_at(0)) ? std::size_t{0}
           : cand_k.size() > 1           ? first_split(accumulates_at(1))
                                         : cand_k.size();
  };
  // Whether a block order's largest K tile that fits rules out every smaller one: the op has
  // too many tiles there to try them, or the traffic there (if known) rules them out, as a
  // smaller K tile moves at least as much. (`tiles` 0: not known either.)
  auto smaller_ruled_out = [&](const TrafficFacts& t) {
    return !smaller_k_tried(t.tiles) ||
           (t.known && (t.channel > cut_cycles || t.energy > cut_energy));
  };
  // Whether the second sweep has work at a (W, O) pair: some block order has a K tile smaller
  // than its largest that fits, and what the first sweep knows of it does not rule them out.
  auto second_sweep_work = [&](std::size_t wi, std::size_t oi) {
    const PairFacts* facts = reached(wi, oi);
    if (!facts) return false;  // the first sweep found it ruled out
    for (std::size_t order = 0; order < orders; ++order) {
      if (facts->first_fit[order] + 1 >= cand_k.size()) continue;
      if (!smaller_ruled_out(facts->first_traffic[order])) return true;
    }
    return false;
  };
  // Whether a floor of these factors exceeds the cut-off. In doubles (the factors of a large
  // op multiply past 64 bits, and row stationary's are fractions), with a margin far above
  // their rounding, so that a floor rounded up never rules out what it should not.
  auto above_cut = [&](double w, double o, double k) {
    return w * o * k * (1 - 1e-9) > static_cast<double>(cut_cycles);
  };
  auto row_ruled_out = [&](std::size_t wi) {
    return have_floors && above_cut(factor_w(wi), least[1], least[2]);
  };
  auto pair_ruled_out = [&](std::size_t wi, std::size_t oi) {
    return have_floors && above_cut(factor_w(wi), factor_o(oi), least[2]);
  };
  // The time objective's bound on the cycles of every block order's candidate at K tile k of
  // the pair (wi, oi), with no traffic: its compute and its first and last transfers
  // (cycles_bound does not fall as the traffic grows, so one above the cut-off rules out all
  // of them). Once per pair and K tile; `order` is any block order (the facts do not depend
  // on it). A floor above the cut-off may be a cheaper one, the full tiles' compute alone
  // (every other tile's is at least 0): that rules out as much, at one tile's price.
  auto compute_floor_at = [&](std::size_t wi, std::size_t oi, std::size_t k, int order,
                              const NestSums& sums) {
    PerK& pk = per_k[k];
    if (pk.compute_floor < 0 && have_floors && above_cut(factor_w(wi), factor_o(oi), factor_k(k)))
      pk.compute_floor = cut_cycles + 1;  // (a floor of every block order's cycles, above it)
    if (pk.compute_floor < 0) {
      const auto sp = spans_of(wi, oi, k);
      TileBox full;
      std::int64_t count = 1;
      for (int d = 0; d < kNumDims; ++d) {
        const TileSpan& s = sp[static_cast<std::size_t>(d)]->front();
        full.origin[d] = s.origin;
        full.extent[d] = s.extent;
        count *= s.count;
      }
      const std::int64_t full_only = count * pricer.tile_cycles(full);
      if (full_only > cut_cycles) return pk.compute_floor = full_only;
      const auto trips = trips_of(wi, oi, k);
      facts_at(pk, wi, oi, k, mapping_of(wi, oi, k, order), trips, sums);
      ScheduleFacts f;
      f.tiles = tiles_of(trips);
      f.compute_cycles = pk.compute;
      f.min_tile_cycles = pk.min_tile;
      f.first_fetch_words = pk.first;
      f.last_write_words = pk.last;
      pk.compute_floor = pricer.cycles_bound(f);
    }
    return pk.compute_floor;
  };
  // A hint (the mapping chosen for the same op on other hardware, mostly another buffer
  // size: sim/accel/mapping_hints.h) is priced before the sweeps, as an early pricing, when
  // its tiles are of the candidate families and its block order is allowed: at its own K
  // tile where the sweeps take that one (the largest that fits its pair and order, or a
  // smaller one where the second sweep tries them), else at the largest that fits (a larger
  // buffer's K tile may not fit this one; a smaller buffer's may be one the second sweep
  // does not try). Either way it is a candidate the search without shortcuts keeps in `all`,
  // which is all the argument above asks of a candidate priced early, and the choice is the
  // same as without it; only the cut-off starts low instead of after the first (W, O) pair.
  // Any other hint is ignored.
  if (hint && shortcuts && early_priced < kMaxEarly) {
    auto index_of = [](const auto& family, const auto& value) {
      return static_cast<std::size_t>(std::find(family.begin(), family.end(), value) -
                                      family.begin());
    };
    const std::array<std::int64_t, kNumDims>& t = hint->tile;
    const std::size_t wi = index_of(fam_w, Triple{t[kDimN], t[kDimP], t[kDimQ]});
    const std::size_t oi = index_of(fam_o, Triple{t[kDimC], t[kDimR], t[kDimS]});
    const std::size_t ki = index_of(cand_k, t[kDimK]);
    const int order = static_cast<int>(index_of(kOrders, hint->order));
    if (wi < fam_w.size() && oi < fam_o.size() && ki < cand_k.size() &&
        order < static_cast<int>(kOrders.size()) &&
        (pinned.stationary < 0 || hint->order[2] == pinned.stationary)) {
      const NestSums sums = sums_of(fam_w[wi], fam_o[oi]);
      FitTests ft{std::vector<std::int8_t>(2 * cand_k.size(), -1)};
      const std::size_t lo = first_fit_of(wi, oi, order, sums, ft);
      const bool tried = ki == lo || (ki > lo && smaller_k_tried(tiles_of(trips_of(wi, oi, lo))));
      if (lo < cand_k.size()) {
        const std::size_t k = tried ? ki : lo;
        const BufferMapping m = mapping_of(wi, oi, k, order);
        const MappingCost c = analyze_mapping(p, m, trips_of(wi, oi, k), res, cap, sums);
        if (c.fits) {
          const MappingScore sc = pricer.score(m, c, kNoDeadline, true);
          ++early_priced;
          ++best.scored;
          if (!sc.exact) early_invalid = true;
          early_best = std::min(early_best, static_cast<double>(sc.cycles));
          tighten(sc);
        }
      }
    }
  }
  for (int sweep = 0; sweep < 2; ++sweep) {
    for (std::size_t wi = 0; wi < fam_w.size(); ++wi) {
      check_interrupt();  // the search of a large op can take seconds
      if (row_ruled_out(wi)) continue;
      for (std::size_t oi = 0; oi < fam_o.size(); ++oi) {
        if (sweep == 1 && !second_sweep_work(wi, oi)) continue;
        if (pair_ruled_out(wi, oi)) continue;
        const NestSums sums = sums_of(fam_w[wi], fam_o[oi]);
        const std::size_t pair_from = all.size();
        for (PerK& pk : per_k) {  // (what is read only once these say it is known stays)
          pk.facts = false;
          pk.seen_count = 0;
          pk.compute_floor = -1;
        }
        fit_tests.reset();
        PairFacts& facts = reach(wi, oi);  // (no other pair is reached while this one runs)
        for (int order = 0; order < static_cast<int>(orders); ++order) {
          if (pinned.stationary >= 0 &&
              kOrders[static_cast<std::size_t>(order)][2] != pinned.stationary)
            continue;
          const std::size_t at = static_cast<std::size_t>(order);
          std::size_t& lo = facts.first_fit[at];
          if (sweep == 1) {
            if (lo + 1 >= cand_k.size()) continue;  // no smaller K tile
            TrafficFacts t0 = facts.first_traffic[at];
            if (!t0.known && smaller_k_tried(t0.tiles)) {
              const MappingCost c0 = analyze_mapping(p, mapping_of(wi, oi, lo, order),
                                                     trips_of(wi, oi, lo), res, cap, sums);
              ScheduleFacts f0;
              fill_traffic(c0, f0);
              t0 = {true, pricer.cycles_bound(f0), c0.tiles, pricer.energy_bound(c0)};
            }
            if (smaller_ruled_out(t0)) continue;
            // The traffic grows as the K tile shrinks (MappingCost: every operand's
            // re-fetches only multiply), and with it the energy bound and the channel's: once
            // they rule a K tile out, they rule out every smaller one.
            for (std::size_t k = lo + 1; k < cand_k.size(); ++k) {
              // A K tile whose compute and first and last transfers alone (no traffic) rule
              // it out rules out every block order's candidate there (cycles_bound does not
              // fall as the traffic grows): none is analysed. The sweep goes on to the
              // smaller K tiles, which the traffic's cut-off would have stopped, but a
              // candidate is only added there if its traffic is within the cut-off, and
              // then it is within it at this K tile too, where the block order would have
              // reached it (traffic grows as the K tile shrinks): the same candidates are
              // added, by the same block order (that of the first order whose candidate
              // there is the nest, as every such order's traffic is within the cut-off on
              // the way).
              if (shortcuts && objective == MappingObjective::kTime &&
                  compute_floor_at(wi, oi, k, order, sums) > cut_cycles)
                continue;
              if (consider(wi, oi, k, order, sums) == kTrafficCut) break;
            }
            continue;
          }
          lo = first_fit_of(wi, oi, order, sums, fit_tests);
          if (lo >= cand_k.size()) continue;
          // The same rule as the second sweep's below, at this K tile: most candidates of the
          // first sweep (93% on a VGG-16 point) are ruled out by their compute alone, which
          // is the pair's, not the block order's. Such a candidate is not analysed; the
          // second sweep is told its tile count (as it would be told by the analysis) and
          // analyses its traffic only if it needs it.
          if (shortcuts && objective == MappingObjective::kTime &&
              compute_floor_at(wi, oi, lo, order, sums) > cut_cycles) {
            facts.first_traffic[at].tiles = tiles_of(trips_of(wi, oi, lo));
            continue;
          }
          consider(wi, oi, lo, order, sums, shortcuts ? &facts.first_traffic[at] : nullptr);
        }
        if (sweep == 0 && shortcuts && early_priced < kMaxEarly) price_early(pair_from);
      }
    }
    if (sweep == 0 && !all.empty()) {
      // Price the best-bounded candidate of the first sweep for a cut-off.
      std::size_t top = 0;
      for (std::size_t i = 1; i < all.size(); ++i)
        if (first_key(all[i]) < first_key(all[top])) top = i;
      tighten(score_of(all[top], kNoDeadline, objective != MappingObjective::kEnergy));
    }
  }
  if (all.empty()) fail_fit(p, res, cap, acc, smallest);

  // Branch and bound over the candidates in increasing order of their bound on the
  // objective's first key (then least traffic, fewest tiles): a candidate's cycle bound is
  // first the sweep's, refined (refine()) when it comes up, and the candidate priced in full
  // when its refined bound comes up; the search stops when no bound can do better than the
  // best price.
  auto bound = [&](const Candidate& c) {
    switch (objective) {
      case MappingObjective::kTime:
        return static_cast<double>(c.cycles_bound);
      case MappingObjective::kEnergy:
        return c.energy_bound;
      default:
        return c.energy_bound * static_cast<double>(c.cycles_bound);
    }
  };
  // Makes a candidate's bounds as tight as they get without a schedule: its cycle bound
  // counts the steps that certainly fetch at every loop (the sweep counts them only where the
  // latency of every fetch could outweigh the compute), and (energy x cycles) its energy is
  // priced, which needs no schedule.
  std::unordered_map<std::size_t, ComputeSums> tiling_compute;
  auto refine = [&](Candidate& c) {
    if (c.refined) return;
    const BufferMapping m = mapping_of(c.wi, c.oi, c.ki, c.order);
    const NestSums sums = sums_of(fam_w[c.wi], fam_o[c.oi]);
    const MappingCost cost = analyze_mapping(p, m, trips_of(c.wi, c.oi, c.ki), res, cap, sums);
    // The block orders of one tiling have the same tiles: their compute is summed once.
    const std::size_t tiling = (c.wi * fam_o.size() + c.oi) * cand_k.size() + c.ki;
    auto it = tiling_compute.find(tiling);
    if (it == tiling_compute.end())
      it = tiling_compute.emplace(tiling, compute_sums(spans_of(c.wi, c.oi, c.ki), pricer)).first;
    c.cycles_bound = pricer.cycles_bound(facts_of(p, m, cost, res, it->second, sums));
    if (objective == MappingObjective::kEdp) {
      if (!c.score) {
        c.score = pricer.score(m, cost, std::numeric_limits<std::int64_t>::max(), false);
        ++untimed;
      }
      c.energy_bound = c.score->energy;
    }
    c.refined = true;
  };
  // Heap entries carry their candidate's keys, so that ordering them reads no candidate (a
  // refined candidate goes back in as a new entry).
  struct Entry {
    double bound;
    std::int64_t dram_words, tiles;
    std::size_t i;
  };
  auto entry = [&](std::size_t i) {
    return Entry{bound(all[i]), all[i].dram_words, all[i].tiles, i};
  };
  auto later = [](const Entry& a, const Entry& b) {  // heap order: the least bound on top
    if (a.bound != b.bound) return a.bound > b.bound;
    if (a.dram_words != b.dram_words) return a.dram_words > b.dram_words;
    if (a.tiles != b.tiles) return a.tiles > b.tiles;
    return a.i > b.i;
  };
  std::vector<Entry> heap;
  heap.reserve(all.size());
  for (std::size_t i = 0; i < all.size(); ++i) heap.push_back(entry(i));
  std::make_heap(heap.begin(), heap.end(), later);
  // The next candidate whose bound is exact, or all.size() when none is left.
  auto next_exact = [&]() -> std::size_t {
    while (!heap.empty()) {
      std::pop_heap(heap.begin(), heap.end(), later);
      const std::size_t i = heap.back().i;
      heap.pop_back();
      if (all[i].refined || objective == MappingObjective::kEnergy) return i;
      refine(all[i]);
      heap.push_back(entry(i));
      std::push_heap(heap.begin(), heap.end(), later);
    }
    return all.size();
  };
  best.candidates = static_cast<std::int64_t>(all.size());
  auto capped = [&] {
    if (best.scored < kMaxScored) return false;
    best.exhausted = false;
    return true;
  };
  std::size_t pick = all.size();
  if (objective == MappingObjective::kTime) {
    // The fastest time: no candidate whose bound reaches the best time can beat it, and one
    // is priced only as far as it might come within the tolerance of the best so far.
    auto band_of = [](std::int64_t t) {
      return t == kNoDeadline
                 ? t
                 : t + static_cast<std::int64_t>(static_cast<double>(t) * kTimeTolerance);
    };
    std::int64_t fastest = kNoDeadline;
    for (std::size_t i = next_exact(); i < all.size(); i = next_exact()) {
      if (all[i].cycles_bound >= fastest || (!all[i].score && best.scored > 0 && capped())) break;
      const MappingScore& sc = score_of(all[i], band_of(fastest));
      if (sc.exact && sc.cycles < fastest) fastest = sc.cycles, pick = i;
    }
    // Among the candidates within kTimeTolerance of it, the least traffic, then energy, then
    // time: in order of traffic, the first that is fast enough, and those of equal traffic.
    const std::int64_t band = band_of(fastest);
    std::vector<std::size_t> near;
    for (std::size_t i = 0; i < all.size(); ++i)
      if (all[i].cycles_bound <= band) near.push_back(i);
    std::stable_sort(near.begin(), near.end(), [&](std::size_t a, std::size_t b) {
      if (all[a].dram_words != all[b].dram_words) return all[a].dram_words < all[b].dram_words;
      return all[a].cycles_bound < all[b].cycles_bound;
    });
    bool have = false;
    for (std::size_t i : near) {
      if (have && all[i].dram_words > all[pick].dram_words) break;
      refine(all[i]);
      if (all[i].cycles_bound > band) continue;
      if (!all[i].score && capped()) break;
      const MappingScore& sc = score_of(all[i], band);
      if (sc.cycles > band) continue;
      if (!have || sc.energy < all[pick].score->energy ||
          (sc.energy == all[pick].score->energy && sc.cycles < all[pick].score->cycles))
        pick = i, have = true;
    }
    if (!have) {  // the cap stopped the search before a fast enough candidate's traffic came up
      for (std::size_t i = 0; i < all.size(); ++i)
        if (all[i].score && all[i].score->exact && all[i].score->cycles == fastest) pick = i;
    }
    best.fastest_cycles = fastest;
  } else {
    // Energy needs no schedule: candidates are priced untimed, and timed only to break a tie
    // in energy and traffic (and, for the one chosen, to report its time).
    const bool timed = objective == MappingObjective::kEdp;
    for (std::size_t i = next_exact(); i < all.size(); i = next_exact()) {
      if (pick < all.size()) {
        const MappingScore& now = *all[pick].score;
        const double have_key = objective == MappingObjective::kEnergy
                                    ? now.energy
                                    : now.energy * static_cast<double>(now.cycles);
        const double b = bound(all[i]);
        if (b > have_key) break;  // in order of bound: no later candidate can win either
        // An equal bound can at best tie on the first key, and then needs less traffic (the
        // closed form's traffic is exact) to win.
        if (b == have_key && all[i].dram_words > now.dram_words) continue;
        if (!all[i].score &&
            (timed ? capped() : untimed >= kMaxUntimed && (best.exhausted = false, true)))
          break;
      }
      const MappingScore& sc = score_of(all[i], kNoDeadline, timed);
      if (pick == all.size()) {
        pick = i;
        continue;
      }
      const MappingScore& now = *all[pick].score;
      if (!timed && sc.energy == now.energy && sc.dram_words == now.dram_words) {
        // A tie in energy and traffic: the faster wins.
        if (score_of(all[i], kNoDeadline).cycles < score_of(all[pick], kNoDeadline).cycles)
          pick = i;
      } else if (better(sc, now, objective)) {
        pick = i;
      }
    }
  }
  const Candidate& c = all[pick];
  best.mapping = mapping_of(c.wi, c.oi, c.ki, c.order);
  best.cost = analyze_mapping(p, best.mapping, res, cap, sums_of(fam_w[c.wi], fam_o[c.oi]));
  best.score = score_of(all[pick], kNoDeadline);
  if (objective != MappingObjective::kTime) best.fastest_cycles = best.score.cycles;
  // Near a cap, the search without the early cut-off might have stopped elsewhere (above).
  const std::int64_t margin = 4 * early_priced + 1;
  if (shortcuts && early_priced > 0 &&
      (early_invalid || !best.exhausted || best.scored + margin >= kMaxScored ||
       untimed + margin >= kMaxUntimed))
    return std::nullopt;
  return best;
}

}  // namespace

void set_search_shortcuts(bool on) {
  g_shortcuts.store(on, std::memory_order_relaxed);
}

SearchResult search_mapping(const NestProblem& p, const OperandResidency& res,
                            const BufferCapacity& cap, const AcceleratorSpec& acc,
                            const std::array<std::int64_t, kNumDims>& granule,
                            const MappingConstraints& pinned, MappingObjective objective,
                            MappingPricer& pricer, const BufferMapping* hint) {
  if (g_shortcuts.load(std::memory_order_relaxed))
    if (auto r = search(p, res, cap, acc, granule, pinned, objective, pricer, true, hint))
      return *r;
  return *search(p, res, cap, acc, granule, pinned, objective, pricer, false, nullptr);
}

std::vector<std::pair<TileBox, std::int64_t>> tile_classes(const NestProblem& p,
                                                           const BufferMapping& m) {
  // Every dimension's distinct tiles (TileSpan) in one vector, dimension d's from first[d]:
  // two allocations a call, as every priced candidate calls this.
  std::vector<TileSpan> spans;
  spans.reserve(2 * kNumDims);  // enough unless a dilated kernel has many distinct tiles
  std::array<std::size_t, kNumDims + 1> first{};
  std::size_t classes = 1;
  for (int d = 0; d < kNumDims; ++d) {
    first[d] = spans.size();
    append_tile_spans(p, d, m.tile[d], spans);
    classes *= spans.size() - first[d];
  }
  first[kNumDims] = spans.size();
  std::vector<std::pair<TileBox, std::int64_t>> out;
  out.reserve(classes);
  std::array<std::size_t, kNumDims> i{};
  std::copy(first.begin(), first.begin() + kNumDims, i.begin());
  for (;;) {
    TileBox b;
    std::int64_t count = 1;
    for (int d = 0; d < kNumDims; ++d) {
      const TileSpan& s = spans[i[d]];
      b.origin[d] = s.origin;
      b.extent[d] = s.extent;
      count *= s.count;
    }
    out.emplace_back(b, count);
    int d = kNumDims - 1;
    while (d >= 0 && ++i[d] == first[d + 1]) i[d] = first[d], --d;
    if (d < 0) break;
  }
  return out;
}

}  // namespace trainsim
