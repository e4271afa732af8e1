#include "mapping/search.h"

#include <algorithm>
#include <map>

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

// Among the candidates with the least DRAM traffic, the caller prices this many (fewest
// tiles first): ties are many when several operands fit whole.
constexpr std::size_t kMaxPriced = 48;

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

std::vector<std::int64_t> tile_candidates(std::int64_t extent, std::int64_t granule) {
  std::vector<std::int64_t> out;
  auto add_trips = [&](std::int64_t trips) {
    std::int64_t t = (extent + trips - 1) / trips;
    if (granule > 1 && t < extent) t = std::min(extent, (t + granule - 1) / granule * granule);
    out.push_back(t);
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

SearchResult search_mapping(const NestProblem& p, const OperandResidency& res,
                            const BufferCapacity& cap, const AcceleratorSpec& acc,
                            const std::array<std::int64_t, kNumDims>& granule,
                            const TileFilter& keeps_mapping, const MappingConstraints& pinned,
                            const MappingEnergy& energy) {
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

  std::int64_t best_dram = -1;
  std::vector<SearchResult> ties;
  NestSums sums;
  sums.total = p.total_words();
  std::vector<signed char> keeps(cand_k.size());
  for (const Triple& w : fam_w) {
    check_interrupt();  // the search of a large op can take seconds
    for (const Triple& o : fam_o) {
      sums.rows = window(row_cache, p.in_rows, kDimP, kDimR, w[1], o[1]);
      sums.cols = window(col_cache, p.in_cols, kDimQ, kDimS, w[2], o[2]);
      sums.k_rows = kernel(krow_cache, p.k_rows, kDimR, o[1]);
      sums.k_cols = kernel(kcol_cache, p.k_cols, kDimS, o[2]);
      std::fill(keeps.begin(), keeps.end(), -1);  // whether each K tile keeps the mapping
      // Per block order, the largest K tile that fits: a smaller one cannot move less. The
      // buffer a mapping needs grows with the K tile, so the largest that fits is found by
      // bisection, then the first below it the dataflow accepts.
      for (const auto& order : kOrders) {
        if (pinned.stationary >= 0 && order[2] != pinned.stationary) continue;
        BufferMapping m;
        m.order = order;
        auto cost_at = [&](std::size_t k) {
          m.tile = {w[0], cand_k[k], o[0], w[1], w[2], o[1], o[2]};
          return analyze_mapping(p, m, res, cap, sums);
        };
        // The whole K dimension is tried first: with one K tile the filter and ofmap tiles
        // may stop changing and need one copy instead of two, so fitting is monotone only
        // below it.
        std::size_t lo = cost_at(0).fits ? 0 : 1, hi = cand_k.size();
        while (lo < hi) {
          const std::size_t mid = (lo + hi) / 2;
          if (cost_at(mid).fits)
            hi = mid;
          else
            lo = mid + 1;
        }
        for (std::size_t k = lo; k < cand_k.size(); ++k) {
          const MappingCost c = cost_at(k);
          if (keeps[k] < 0) keeps[k] = m.tile == smallest || keeps_mapping(m.tile);
          if (!keeps[k] || !c.fits) continue;
          const std::int64_t dram = c.dram_words();
          if (best_dram < 0 || dram < best_dram) ties.clear(), best_dram = dram;
          if (dram == best_dram) ties.push_back({m, c});
          break;
        }
      }
    }
  }
  if (ties.empty()) fail_fit(p, res, cap, acc, smallest);
  // Fewest tiles (then fewest memory-level buffer accesses) first; a block order with
  // trivial blocks is the same nest as another, so equal costs with equal tiles are one.
  std::stable_sort(ties.begin(), ties.end(), [](const SearchResult& a, const SearchResult& b) {
    return std::make_pair(a.cost.tiles, a.cost.buffer_words()) <
           std::make_pair(b.cost.tiles, b.cost.buffer_words());
  });
  std::size_t best = 0;
  double best_energy = 0;
  std::vector<std::array<std::int64_t, kNumDims>> priced;
  for (std::size_t i = 0; i < ties.size() && priced.size() < kMaxPriced; ++i) {
    // Equal tiles and equal traffic cost the same whatever the order of trivial blocks.
    if (std::find(priced.begin(), priced.end(), ties[i].mapping.tile) != priced.end()) continue;
    priced.push_back(ties[i].mapping.tile);
    const double e = energy(ties[i].mapping, ties[i].cost);
    if (priced.size() == 1 || e < best_energy) best = i, best_energy = e;
  }
  return ties[best];
}

std::vector<std::pair<TileBox, std::int64_t>> tile_classes(const NestProblem& p,
                                                           const BufferMapping& m) {
  // Per dimension: (origin, extent, count) of its distinct tiles.
  struct Span {
    std::int64_t origin, extent, count;
  };
  std::array<std::vector<Span>, kNumDims> spans;
  for (int d = 0; d < kNumDims; ++d) {
    const std::int64_t e = p.extent[d], t = m.tile[d];
    const bool dilated = (d == kDimR && p.k_rows.step > 1) || (d == kDimS && p.k_cols.step > 1);
    if (dilated) {
      for (std::int64_t o = 0; o < e; o += t) spans[d].push_back({o, std::min(t, e - o), 1});
      continue;
    }
    if (e / t > 0) spans[d].push_back({0, t, e / t});
    if (e % t > 0) spans[d].push_back({e / t * t, e % t, 1});
  }
  std::vector<std::pair<TileBox, std::int64_t>> out;
  std::array<std::size_t, kNumDims> i{};
  for (;;) {
    TileBox b;
    std::int64_t count = 1;
    for (int d = 0; d < kNumDims; ++d) {
      const Span& s = spans[d][i[d]];
      b.origin[d] = s.origin;
      b.extent[d] = s.extent;
      count *= s.count;
    }
    out.emplace_back(b, count);
    int d = kNumDims - 1;
    while (d >= 0 && ++i[d] == spans[d].size()) i[d--] = 0;
    if (d < 0) break;
  }
  return out;
}

}  // namespace trainsim
