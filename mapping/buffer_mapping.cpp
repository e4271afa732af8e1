#include "mapping/buffer_mapping.h"

#include <cmath>
#include <cstdio>

namespace trainsim {

namespace {

std::int64_t ceil_div(std::int64_t a, std::int64_t b) {
  return (a + b - 1) / b;
}

std::string kib_text(double kib) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g KiB", kib);
  return buf;
}

// What a mapping occupies in the buffer: the words each operand needs, whether the output has
// two slots and whether it all fits: the part of the closed form the search's bisection over
// K tiles asks about (tile_fits, millions of times a sweep), shared with analyze_mapping so
// that both say the same.
struct BufferNeed {
  std::array<std::int64_t, kNumOperands> words{};
  bool output_double_buffered = false;
  bool fits = false;
};

// `changes`: bit o set if operand o's tile ever changes (operand_changes).
BufferNeed buffer_need(const std::array<std::int64_t, kNumOperands>& tile_words, unsigned changes,
                       bool accumulates, const std::array<std::int64_t, kNumOperands>& total,
                       const OperandResidency& res, const BufferCapacity& cap) {
  BufferNeed n;
  for (int o : {kIfmap, kFilter}) {
    const bool whole =
        res.kind[o] == OperandResidency::kOnChip || res.kind[o] == OperandResidency::kLoadKeep;
    const bool two = cap.double_buffer && (changes >> o & 1u);
    n.words[o] = whole ? total[o] : tile_words[o] * (two ? 2 : 1);
  }
  if (res.kind[kOfmap] == OperandResidency::kKeep) {
    n.words[kOfmap] = total[kOfmap];
  } else {
    // An output tile that accumulates over consecutive tiles (the innermost iterating block
    // is the reduction) is drained once per many tiles: one copy, the drain exposed. One
    // that changes with every tile is double-buffered like the inputs.
    n.output_double_buffered = cap.double_buffer && (changes >> kOfmap & 1u) && !accumulates;
    n.words[kOfmap] = tile_words[kOfmap] * (n.output_double_buffered ? 2 : 1);
  }
  if (cap.shared) {
    n.fits = n.words[0] + n.words[1] + n.words[2] <= cap.total_words;
  } else {
    n.fits = true;
    for (int o = 0; o < kNumOperands; ++o)
      if (n.words[o] > cap.partition_words[o]) n.fits = false;
  }
  return n;
}

}  // namespace

std::array<std::int64_t, kNumOperands> largest_tile_words(
    const NestProblem& p, const std::array<std::int64_t, kNumDims>& t, const NestSums& sums) {
  return {t[kDimN] * t[kDimC] * sums.rows.max * sums.cols.max,
          p.filter_elsewhere ? 0 : t[kDimK] * t[kDimC] * sums.k_rows.max * sums.k_cols.max,
          t[kDimN] * t[kDimK] * t[kDimP] * t[kDimQ]};
}

unsigned operand_changes(const std::array<std::int64_t, kNumDims>& trips) {
  unsigned changes = 0;
  for (int d = 0; d < kNumDims; ++d)
    if (trips[d] > 1) changes |= 7u & ~(1u << irrelevant_operand(d));
  return changes;
}

bool words_fit(const std::array<std::int64_t, kNumOperands>& tile_words, unsigned changes,
               bool accumulates, const std::array<std::int64_t, kNumOperands>& total,
               const OperandResidency& res, const BufferCapacity& cap) {
  return buffer_need(tile_words, changes, accumulates, total, res, cap).fits;
}

bool mapping_fits(const NestProblem& p, const BufferMapping& m,
                  const std::array<std::int64_t, kNumDims>& trips, const OperandResidency& res,
                  const BufferCapacity& cap, const NestSums& sums) {
  return tile_fits(p, m.tile, trips,
                   res.kind[kOfmap] != OperandResidency::kKeep && output_accumulates(m, trips), res,
                   cap, sums);
}

bool tile_fits(const NestProblem& p, const std::array<std::int64_t, kNumDims>& tile,
               const std::array<std::int64_t, kNumDims>& trips, bool accumulates,
               const OperandResidency& res, const BufferCapacity& cap, const NestSums& sums) {
  return words_fit(largest_tile_words(p, tile, sums), operand_changes(trips), accumulates,
                   sums.total, res, cap);
}

OperandResidency OperandResidency::of(const Op& op) {
  OperandResidency r;
  const Residency& f = op.residency;
  for (int o : {kIfmap, kFilter}) {
    const auto bit = static_cast<std::uint8_t>(1u << o);
    if (f.in_on_chip & bit)
      r.kind[o] = kOnChip;
    else if (f.in_keep & bit)
      r.kind[o] = kLoadKeep;
  }
  if (f.out_keep & 1u) r.kind[kOfmap] = kKeep;
  r.write_out = !(f.out_drop & 1u);
  return r;
}

BufferCapacity BufferCapacity::of(const AcceleratorSpec& acc) {
  BufferCapacity c;
  const double words_per_kib = 1024.0 / static_cast<double>(acc.word_bytes());
  auto words = [&](double kib) {
    return static_cast<std::int64_t>(std::floor(kib * words_per_kib));
  };
  c.shared = acc.buffer.shared;
  c.total_words = words(acc.buffer_kib());
  c.partition_words = {words(acc.buffer.ifmap_kib), words(acc.buffer.filter_kib),
                       words(acc.buffer.ofmap_kib)};
  c.double_buffer = acc.buffer.double_buffer;
  return c;
}

std::string BufferCapacity::level_name(int operand, const AcceleratorSpec& acc) const {
  if (shared) return "the " + kib_text(acc.buffer.kib) + " global buffer";
  return std::string("buffer partition ") + operand_name(operand) + " (" +
         kib_text(acc.buffer_kib_of(operand)) + ")";
}

std::int64_t MappingCost::dram_words() const {
  std::int64_t w = 0;
  for (int o = 0; o < kNumOperands; ++o) w += dram_read_words[o] + dram_write_words[o];
  return w;
}

std::int64_t MappingCost::buffer_words() const {
  return dram_words() + accumulate_words;
}

std::array<std::int64_t, kNumDims> trip_counts(const NestProblem& p, const BufferMapping& m) {
  std::array<std::int64_t, kNumDims> t{};
  for (int d = 0; d < kNumDims; ++d) t[d] = ceil_div(p.extent[d], m.tile[d]);
  return t;
}

AxisSums window_sums(const RealAxis& in, std::int64_t n_out, std::int64_t t_out, std::int64_t u,
                     std::int64_t n_k, std::int64_t t_k) {
  AxisSums s;
  for (std::int64_t o = 0; o < n_out; o += t_out) {
    const std::int64_t e = std::min(t_out, n_out - o);
    for (std::int64_t k = 0; k < n_k; k += t_k) {
      const std::int64_t ek = std::min(t_k, n_k - k);
      const std::int64_t v = touched_positions(in, o, e, u, k, ek);
      s.min = o == 0 && k == 0 ? v : std::min(s.min, v);
      s.sum += v;
      s.max = std::max(s.max, v);
    }
  }
  return s;
}

AxisSums kernel_sums(const RealAxis& k, std::int64_t n_k, std::int64_t t_k) {
  AxisSums s;
  for (std::int64_t o = 0; o < n_k; o += t_k) {
    const std::int64_t v = k.real_in(o, std::min(t_k, n_k - o));
    s.min = o == 0 ? v : std::min(s.min, v);
    s.sum += v;
    s.max = std::max(s.max, v);
  }
  return s;
}

NestSums nest_sums(const NestProblem& p, const BufferMapping& m) {
  const auto& e = p.extent;
  const auto& t = m.tile;
  NestSums s;
  s.rows = window_sums(p.in_rows, e[kDimP], t[kDimP], p.stride, e[kDimR], t[kDimR]);
  s.cols = window_sums(p.in_cols, e[kDimQ], t[kDimQ], p.stride, e[kDimS], t[kDimS]);
  s.k_rows = kernel_sums(p.k_rows, e[kDimR], t[kDimR]);
  s.k_cols = kernel_sums(p.k_cols, e[kDimS], t[kDimS]);
  s.total = p.total_words();
  return s;
}

bool output_accumulates(const std::array<int, kNumOperands>& order,
                        const std::array<bool, kNumOperands>& iterates) {
  for (int b = kNumOperands - 1; b >= 0; --b)
    if (iterates[static_cast<std::size_t>(order[b])]) return order[b] == kOfmap;
  return false;
}

bool output_accumulates(const BufferMapping& m, const std::array<std::int64_t, kNumDims>& trips) {
  std::array<bool, kNumOperands> iterates{false, false, false};
  for (int d = 0; d < kNumDims; ++d)
    if (trips[d] > 1) iterates[static_cast<std::size_t>(irrelevant_operand(d))] = true;
  return output_accumulates(m.order, iterates);
}

MappingCost analyze_mapping(const NestProblem& p, const BufferMapping& m,
                            const OperandResidency& res, const BufferCapacity& cap,
                            const NestSums& sums) {
  return analyze_mapping(p, m, trip_counts(p, m), res, cap, sums);
}

MappingCost analyze_mapping(const NestProblem& p, const BufferMapping& m,
                            const std::array<std::int64_t, kNumDims>& trips,
                            const OperandResidency& res, const BufferCapacity& cap,
                            const NestSums& sums) {
  MappingCost c;
  c.trips = trips;
  c.tiles = 1;
  for (std::int64_t t : c.trips) c.tiles *= t;
  const auto& e = p.extent;
  const AxisSums &rows = sums.rows, &cols = sums.cols, &kr = sums.k_rows, &kc = sums.k_cols;
  const std::array<std::int64_t, kNumOperands>& total = sums.total;
  const std::array<std::int64_t, kNumOperands> sum = {
      e[kDimN] * e[kDimC] * rows.sum * cols.sum,
      p.filter_elsewhere ? 0 : e[kDimK] * e[kDimC] * kr.sum * kc.sum, total[kOfmap]};
  c.tile_words = largest_tile_words(p, m.tile, sums);

  // Iterations of each block and whether an operand's tile ever changes.
  std::array<std::int64_t, kNumOperands> block{1, 1, 1};
  for (int d = 0; d < kNumDims; ++d) block[irrelevant_operand(d)] *= c.trips[d];
  const unsigned changes = operand_changes(c.trips);
  std::array<int, kNumOperands> pos{};
  for (int i = 0; i < kNumOperands; ++i) pos[m.order[i]] = i;
  std::array<std::int64_t, kNumOperands> mult{};
  for (int o = 0; o < kNumOperands; ++o) {
    bool inner = false;
    for (int q = 0; q < kNumOperands; ++q)
      if (q != o && pos[q] > pos[o] && block[q] > 1) inner = true;
    mult[o] = inner ? block[o] : 1;
  }

  for (int o : {kIfmap, kFilter}) {
    if (res.kind[o] == OperandResidency::kLoadKeep)
      c.dram_read_words[o] = total[o];
    else if (res.kind[o] != OperandResidency::kOnChip)
      c.dram_read_words[o] = sum[o] * mult[o];
  }
  const bool kept = res.kind[kOfmap] == OperandResidency::kKeep;
  if (kept) {
    c.dram_write_words[kOfmap] = res.write_out ? total[kOfmap] : 0;
  } else {
    c.dram_write_words[kOfmap] = total[kOfmap] * mult[kOfmap];
    c.dram_read_words[kOfmap] = total[kOfmap] * (mult[kOfmap] - 1);
  }
  c.accumulate_words = total[kOfmap] * (block[kOfmap] - 1);
  const BufferNeed need =
      buffer_need(c.tile_words, changes, !kept && output_accumulates(m, c.trips), total, res, cap);
  c.need_words = need.words;
  c.output_double_buffered = need.output_double_buffered;
  c.fits = need.fits;
  return c;
}

MappingCost analyze_mapping(const NestProblem& p, const BufferMapping& m,
                            const OperandResidency& res, const BufferCapacity& cap) {
  return analyze_mapping(p, m, res, cap, nest_sums(p, m));
}

std::string mapping_text(const NestProblem& p, const BufferMapping& m, const MappingCost& c,
                         const OperandResidency& res, int word_bytes) {
  std::string out;
  char buf[200];
  std::snprintf(buf, sizeof buf, "buffer mapping: %lld tile(s), loops outermost first:\n",
                static_cast<long long>(c.tiles));
  out += buf;
  std::string indent = "  ";
  for (int b = 0; b < kNumOperands; ++b) {
    // A block's loops re-fetch the operand they do not index if a block inside them
    // iterates; otherwise that operand stays in the buffer while they run.
    bool inner_iterates = false;
    for (int q = b + 1; q < kNumOperands; ++q) {
      int n = 0;
      const auto& dims = block_dims(m.order[q], n);
      for (int i = 0; i < n; ++i) inner_iterates |= c.trips[dims[i]] > 1;
    }
    const int o = m.order[b];
    const std::string what = o == kOfmap ? "ofmap partial sums" : operand_name(o);
    int n = 0;
    const auto& dims = block_dims(o, n);
    for (int i = 0; i < n; ++i) {
      const int d = dims[i];
      if (c.trips[d] <= 1) continue;
      const std::string effect =
          inner_iterates ? "re-fetches " + what : "keeps " + what + " in the buffer";
      std::snprintf(buf, sizeof buf, "%sfor %s in [0, %lld) step %lld   (%lld; %s)\n",
                    indent.c_str(), dim_name(d, p.gemm), static_cast<long long>(p.extent[d]),
                    static_cast<long long>(m.tile[d]), static_cast<long long>(c.trips[d]),
                    effect.c_str());
      out += buf;
      indent += "  ";
    }
  }
  std::string tile;
  for (int d = 0; d < kNumDims; ++d) {
    if (dim_name(d, p.gemm)[0] == '\0') continue;
    tile += std::string(tile.empty() ? "" : " ") + dim_name(d, p.gemm) + "=" +
            std::to_string(m.tile[d]);
  }
  out += indent + "tile " + tile + "\n";
  static const char* const kind_text[] = {"tiled", "on chip (kept by the previous op)",
                                          "read whole, kept for the next op",
                                          "kept whole for the next op"};
  std::snprintf(buf, sizeof buf, "%-8s %14s %14s %14s %14s  %s\n", "operand", "tile words",
                "buffer words", "DRAM read B", "DRAM write B", "residency");
  out += buf;
  for (int o = 0; o < kNumOperands; ++o) {
    std::string how = kind_text[res.kind[o]];
    if (o == kOfmap && !res.write_out) how += ", not written back";
    if (o == kFilter && p.filter_elsewhere) how = "in its own memory";
    std::snprintf(buf, sizeof buf, "%-8s %14lld %14lld %14lld %14lld  %s\n", operand_name(o),
                  static_cast<long long>(c.tile_words[o]), static_cast<long long>(c.need_words[o]),
                  static_cast<long long>(c.dram_read_words[o] * word_bytes),
                  static_cast<long long>(c.dram_write_words[o] * word_bytes), how.c_str());
    out += buf;
  }
  const auto total = p.total_words();
  std::snprintf(buf, sizeof buf,
                "DRAM traffic %lld words = %.3fx the minimum %lld (each operand once)\n",
                static_cast<long long>(c.dram_words()),
                static_cast<double>(c.dram_words()) /
                    static_cast<double>(std::max<std::int64_t>(1, total[0] + total[1] + total[2])),
                static_cast<long long>(total[0] + total[1] + total[2]));
  out += buf;
  return out;
}

}  // namespace trainsim
