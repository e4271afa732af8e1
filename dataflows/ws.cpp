// Weight stationary: a K x N tile of the filter B stays in the PEs (K on rows, N on columns),
// the ifmap A streams in from the left one row of M per cycle, psums flow down the columns.
#include <utility>

#include "dataflows/instances.h"
#include "dataflows/systolic_engine.h"

namespace trainsim {
namespace {

class WsDataflow final : public SystolicDataflow {
 public:
  WsDataflow() : SystolicDataflow(Systolic::kWs) {}
  std::string name() const override { return "ws"; }
  std::string description() const override {
    return "weight stationary (TPU-like): filter tiles stay in the PEs, ifmap rows stream in "
           "from the left, psums flow down the columns";
  }

 protected:
  void add_counts(const SystolicMapping& m, OpStats& st) const override {
    const GemmShape& g = m.gemm;
    st.rf.writes[kIfmap] = st.noc.reads[kIfmap] = st.macs;
    st.rf.writes[kFilter] = st.noc.reads[kFilter] = g.n * m.shift_in_latches_per_col();
    st.noc.writes[kOfmap] = st.macs;
    st.buffer.reads[kIfmap] = m.col_folds * g.m * g.k;
    st.buffer.reads[kFilter] = g.k * g.n;
    st.buffer.reads[kOfmap] = (m.row_folds - 1) * g.m * g.n;
    st.buffer.writes[kOfmap] = m.row_folds * g.m * g.n;
  }

  ScaleSimView scalesim(const SystolicMapping& m) const override {
    const GemmShape& g = m.gemm;
    ScaleSimView v;
    v.compute_cycles = m.compute_cycles();
    v.ifmap_sram_reads = m.col_folds * g.m * g.k;
    v.filter_sram_reads = g.k * g.n;
    v.ofmap_sram_writes = m.row_folds * g.m * g.n;
    return v;
  }

  std::unique_ptr<ArrayEngine> make_engine(const SystolicMapping& m,
                                           OperandValues values) const override {
    const GemmShape& g = m.gemm;
    TileStreamInput in;
    in.stat = std::move(values.b);            // B is already K x N
    in.mov = transposed(values.a, g.m, g.k);  // row k of the fold streams A[:, k]: store A^T
    in.stat_operand = kFilter;
    in.mov_operand = kIfmap;
    in.out_stride_t = g.n;  // stream step = output row m
    in.out_stride_c = 1;
    return make_tile_stream_engine(m, std::move(in));
  }
};

}  // namespace

const Dataflow& ws_dataflow() {
  static const WsDataflow instance;
  return instance;
}

}  // namespace trainsim
