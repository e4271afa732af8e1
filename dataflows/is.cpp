// Input stationary: a K x M tile of the ifmap (A transposed) stays in the PEs (K on rows, M
// on columns), the filter B streams in from the left one column of N per cycle, psums flow
// down the columns. The mirror image of ws with the operands' roles swapped.
#include <utility>

#include "dataflows/instances.h"
#include "dataflows/systolic_engine.h"

namespace trainsim {
namespace {

class IsDataflow final : public SystolicDataflow {
 public:
  IsDataflow() : SystolicDataflow(Systolic::kIs) {}
  std::string name() const override { return "is"; }
  std::string description() const override {
    return "input stationary: ifmap tiles stay in the PEs, filter columns stream in from the "
           "left, psums flow down the columns";
  }

 protected:
  void add_counts(const SystolicMapping& m, OpStats& st) const override {
    const GemmShape& g = m.gemm;
    st.rf.writes[kFilter] = st.noc.reads[kFilter] = st.macs;
    st.rf.writes[kIfmap] = st.noc.reads[kIfmap] = g.m * m.shift_in_latches_per_col();
    st.noc.writes[kOfmap] = st.macs;
    st.buffer.reads[kIfmap] = g.m * g.k;
    st.buffer.reads[kFilter] = m.col_folds * g.k * g.n;
    st.buffer.reads[kOfmap] = (m.row_folds - 1) * g.m * g.n;
    st.buffer.writes[kOfmap] = m.row_folds * g.m * g.n;
  }

  ScaleSimView scalesim(const SystolicMapping& m) const override {
    const GemmShape& g = m.gemm;
    ScaleSimView v;
    v.compute_cycles = m.compute_cycles();
    v.ifmap_sram_reads = g.m * g.k;
    v.filter_sram_reads = m.col_folds * g.k * g.n;
    v.ofmap_sram_writes = m.row_folds * g.m * g.n;
    return v;
  }

  std::unique_ptr<ArrayEngine> make_engine(const SystolicMapping& m,
                                           OperandValues values) const override {
    const GemmShape& g = m.gemm;
    TileStreamInput in;
    in.stat = transposed(values.a, g.m, g.k);  // K on rows, M on columns: store A^T
    in.mov = std::move(values.b);              // row k of the fold streams B[k, :]
    in.stat_operand = kIfmap;
    in.mov_operand = kFilter;
    in.out_stride_t = 1;  // stream step = output column n
    in.out_stride_c = g.n;
    return make_tile_stream_engine(m, std::move(in));
  }
};

}  // namespace

const Dataflow& is_dataflow() {
  static const IsDataflow instance;
  return instance;
}

}  // namespace trainsim
