#include "dataflows/rs.h"

#include "dataflows/rs_engine.h"
#include "dataflows/rs_mapping.h"

namespace trainsim {
namespace {

// The closed form of the mapping: per class, the jobs of a category all cost the same, so
// counts are (jobs in the category) x (per-job count); cycles are RsMapping::compute_cycles.
OpStats rs_evaluate(const RsMapping& m, const AcceleratorSpec& acc) {
  OpStats st;
  st.pes = acc.pes();
  st.mapping = m.summary();
  const std::int64_t F = m.F;
  st.compute_cycles = m.compute_cycles();
  for (const RsClass& k : m.classes) {
    const std::int64_t h = k.h, w = k.w;
    const std::int64_t rows_read = m.real_rows(k);
    for (const RsCategory& cat : m.categories) {
      const std::int64_t n = cat.count, pqs = cat.p * cat.q * cat.s;
      const std::int64_t macs = n * h * w * F * pqs;
      st.macs += macs;
      for (int o = 0; o < kNumOperands; ++o) st.rf.reads[o] += macs;
      st.rf.writes[kOfmap] += macs;
      // Weights: preloaded once per job, one buffer read per word multicast along a PE row.
      st.rf.writes[kFilter] += n * h * w * pqs;
      st.noc.reads[kFilter] += n * h * w * pqs;
      st.buffer.reads[kFilter] += n * h * pqs;
      // Inputs: a window of s per channel, then min(U, s) new words per output column; the
      // buffer reads each real word of a set's distinct rows once (diagonal multicast). Row
      // chunks re-stream the input row, each over its own columns.
      const std::int64_t in_words = n * h * w * cat.q * (cat.s + (F - 1) * m.slide(cat.s));
      st.rf.writes[kIfmap] += in_words;
      st.noc.reads[kIfmap] += in_words;
      std::int64_t cols_read = 0;  // summed over the category's chunks
      for (std::int64_t c = cat.k0; c < cat.k0 + cat.nk; ++c) cols_read += m.chunk_real_cols[c];
      st.buffer.reads[kIfmap] += (n / cat.nk) * cat.q * rows_read * cols_read;
      // Psums: per column, output pixel and filter, h PEs read and send their psum (h - 1
      // hops up, one into the buffer) and h - 1 PEs receive one into the psum RF. Row chunks
      // each write back their partial psums, like channel groups.
      const std::int64_t psums = n * w * F * cat.p;
      st.rf.reads[kOfmap] += psums * h;
      st.rf.writes[kOfmap] += psums * (h - 1);
      st.noc.writes[kOfmap] += psums * h;
      st.buffer.writes[kOfmap] += psums;
    }
  }
  // Every write-back but the first to an output is a read-modify-write of the buffer.
  st.buffer.reads[kOfmap] = st.buffer.writes[kOfmap] - m.N * m.M * m.E * m.F;
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
  std::array<std::int64_t, kNumDims> tile_granules(const NestProblem& p,
                                                   const AcceleratorSpec& acc) const override {
    // A PE interleaves p filters and q channels out of its register files (RF-level reuse):
    // buffer tiles of whole groups keep every tile's mapping as the whole op's.
    const RsMapping m = map_rs(p.op, acc);
    std::array<std::int64_t, kNumDims> g;
    g.fill(1);
    g[kDimK] = m.p;
    g[kDimC] = m.q;
    return g;
  }
  std::unique_ptr<ArrayEngine> engine(const Op& op, const AcceleratorSpec& acc,
                                      OperandValues values) const override {
    return make_rs_engine(map_rs(op, acc), std::move(values), acc.pes());
  }
};

}  // namespace

const Dataflow& rs_dataflow() {
  static const RsDataflow instance;
  return instance;
}

}  // namespace trainsim
