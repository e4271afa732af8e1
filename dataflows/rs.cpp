#include "dataflows/rs.h"

#include <algorithm>

#include "dataflows/accumulator.h"
#include "dataflows/rs_engine.h"
#include "dataflows/rs_mapping.h"

namespace trainsim {
namespace {

// The closed form of the mapping: per class, the jobs of a category all cost the same, so
// counts are (jobs in the category) x (per-job count), but for the buffer reads neighbouring
// sets share (RsMapping::category_reads); cycles are RsMapping::compute_cycles.
OpStats rs_evaluate(const RsMapping& m, const AcceleratorSpec& acc) {
  OpStats st;
  st.pes = acc.pes();
  st.mapping = m.summary();
  const std::int64_t F = m.F;
  st.compute_cycles = m.compute_cycles();
  m.for_each_category([&](const RsClass& k, const RsCategory& cat, const RsCategoryReads& shared) {
    const std::int64_t h = k.h, w = k.w;
    const std::int64_t n = cat.count, pqs = cat.p * cat.q * cat.s;
    const std::int64_t macs = n * h * w * F * pqs;
    st.macs += macs;
    for (int o = 0; o < kNumOperands; ++o) st.rf.reads[o] += macs;
    st.rf.writes[kOfmap] += macs;
    // Weights: preloaded once per job, one buffer read per word multicast along a PE row
    // (and to the next set of the pass if its job has the same weights).
    st.rf.writes[kFilter] += n * h * w * pqs;
    st.noc.reads[kFilter] += n * h * w * pqs;
    st.buffer.reads[kFilter] += shared.weight_jobs * h * pqs;
    // Inputs: a window of s per channel, then min(U, s) new words per output column; the
    // buffer reads each real word of a set's distinct rows once (diagonal multicast, and to
    // the next set of the pass if its job has the same inputs). Row chunks re-stream the
    // input row, each over its own columns.
    const std::int64_t in_words = n * h * w * cat.q * (cat.s + (F - 1) * m.slide(cat.s));
    st.rf.writes[kIfmap] += in_words;
    st.noc.reads[kIfmap] += in_words;
    st.buffer.reads[kIfmap] += shared.input_words;
    // Psums: per column, output pixel and filter, h PEs read and send their psum (h - 1
    // hops up, one into the buffer or, chained, into the set above) and h - 1 PEs receive one
    // into the psum RF, as does the bottom PE of a set chained to the one below. Row chunks
    // each write back their partial psums, like channel groups, unless chained.
    const std::int64_t per_job = w * F * cat.p, psums = n * per_job;
    st.rf.reads[kOfmap] += psums * h;
    st.rf.writes[kOfmap] += psums * (h - 1) + (n - shared.drain_jobs) * per_job;
    st.noc.writes[kOfmap] += psums * h;
    st.buffer.writes[kOfmap] += shared.drain_jobs * per_job;
  });
  // Every write-back but the first to an output is a read-modify-write of the buffer.
  const Count outputs = static_cast<Count>(m.N * m.M * m.E * m.F);
  st.buffer.reads[kOfmap] = st.buffer.writes[kOfmap] - outputs;
  if (m.psums_in_accumulator) route_psums_to_accumulator(st, outputs);
  return st;
}

class RsDataflow : public Dataflow {
 public:
  std::string name() const override { return "rs"; }
  std::string description() const override {
    return "row stationary (Eyeriss): filter rows stay in the PEs, input rows slide through "
           "1-D convolutions, psums accumulate up the PE columns";
  }
  bool gemm_based() const override { return false; }
  OpStats evaluate(const Op& op, const AcceleratorSpec& acc) const override {
    return rs_evaluate(map_rs(op, acc), acc);
  }
  std::int64_t compute_cycles(const Op& op, const AcceleratorSpec& acc) const override {
    return rs_compute_cycles(op, acc);
  }
  std::int64_t tile_compute_cycles(const NestProblem& p, const TileBox& box,
                                   const AcceleratorSpec& acc) const override {
    return rs_tile_cycles(p, box, acc);
  }
  std::array<std::int64_t, kNumDims> tile_granules(const NestProblem& p,
                                                   const AcceleratorSpec& acc) const override {
    // A PE interleaves p filters and q channels out of its register files (RF-level reuse):
    // buffer tiles of whole groups keep every tile's mapping as the whole op's.
    const RsMapping m = map_rs(p.op, acc);
    std::array<std::int64_t, kNumDims> g;
    g.fill(1);
    g[kDimK] = m.group_p;
    g[kDimC] = m.group_q;
    return g;
  }
  std::unique_ptr<ArrayEngine> engine(const Op& op, const AcceleratorSpec& acc,
                                      OperandValues values) const override {
    return make_rs_engine(map_rs(op, acc), std::move(values), acc.pes());
  }
  double compute_floor_factor(const NestProblem& p, const AcceleratorSpec& acc, TileBlock block,
                              const std::vector<BlockTile>* tiles) const override {
    // A tile runs as the convolution of its N images, K filters, C channels, P x Q outputs
    // and R x S kernel (tile_op; padding and dilation zeros included). Its jobs' p q s sum to
    // N K C S over every job (filter groups, channel groups and row chunks partition them),
    // each job takes (Q + 1) p q s + h cycles, and a class of sets (one segment of h <= rows
    // kernel rows and one strip of w <= cols output rows) runs rep = floor(rows / h)
    // floor(cols / w) of them at a time, each pass as long as its longest: the class takes
    // at least (Q + 1) N K C S / rep. Over the classes, the segments' sum of 1 / floor(rows /
    // h) times the strips' of 1 / floor(cols / w), so a tile takes at least
    //   [N (Q + 1) strips(P)] [C S segments(R)] [K],
    // a product of one function of each block's tile; and a block tiled any way sums to at
    // least N (Q + 1) P / cols, C S R / rows and K (h floor(rows / h) <= rows).
    const std::int64_t rows = acc.rows, cols = acc.cols;
    if (rows < 1 || cols < 1) return 0;
    // Sum over the pieces of `extent` cut into `side` of 1 / floor(side / piece).
    auto pieces = [](std::int64_t extent, std::int64_t side) {
      double sum = 0;
      for (std::int64_t at = 0; at < extent; at += side)
        sum += 1.0 / static_cast<double>(side / std::min(side, extent - at));
      return sum;
    };
    const auto& e = p.extent;
    double sum = 0;
    switch (block) {
      case TileBlock::kPixels:
        if (!tiles)
          return static_cast<double>(e[kDimN] * (e[kDimQ] + 1) * e[kDimP]) /
                 static_cast<double>(cols);
        for (const BlockTile& t : *tiles)
          sum += static_cast<double>(t.count * t.extent[0] * (t.extent[2] + 1)) *
                 pieces(t.extent[1], cols);
        return sum;
      case TileBlock::kReduction:
        if (!tiles)
          return static_cast<double>(e[kDimC] * e[kDimS] * e[kDimR]) / static_cast<double>(rows);
        for (const BlockTile& t : *tiles)
          sum +=
              static_cast<double>(t.count * t.extent[0] * t.extent[2]) * pieces(t.extent[1], rows);
        return sum;
      case TileBlock::kFilters:
        return static_cast<double>(e[kDimK]);
    }
    return 0;
  }
};

}  // namespace

const Dataflow& rs_dataflow() {
  static const RsDataflow instance;
  return instance;
}

}  // namespace trainsim
