// Output stationary: each PE owns one output C[m][n] (M on rows, N on columns) for a whole
// fold; A enters from the left and B from the top, both skewed, and the K products meet in
// the PE one per cycle.
#include <utility>

#include "dataflows/instances.h"
#include "dataflows/systolic_engine.h"

namespace trainsim {
namespace {

class OsDataflow final : public SystolicDataflow {
 public:
  OsDataflow() : SystolicDataflow(Systolic::kOs) {}
  std::string name() const override { return "os"; }
  std::string description() const override {
    return "output stationary: outputs accumulate in place, ifmap rows enter from the left "
           "and filter columns from the top";
  }

 protected:
  void add_counts(const SystolicMapping& m, OpStats& st) const override {
    const GemmShape& g = m.gemm;
    st.rf.writes[kIfmap] = st.noc.reads[kIfmap] = st.macs;
    st.rf.writes[kFilter] = st.noc.reads[kFilter] = st.macs;
    st.noc.writes[kOfmap] = g.m * g.n;
    st.buffer.reads[kIfmap] = m.col_folds * g.m * g.k;
    st.buffer.reads[kFilter] = m.row_folds * g.k * g.n;
    st.buffer.writes[kOfmap] = g.m * g.n;  // true traffic: SCALE-Sim's F * (R + C) dropped
  }

  ScaleSimView scalesim(const SystolicMapping& m) const override {
    const GemmShape& g = m.gemm;
    ScaleSimView v;
    v.compute_cycles = m.compute_cycles();
    v.ifmap_sram_reads = m.col_folds * g.m * g.k;
    v.filter_sram_reads = m.row_folds * g.k * g.n;
    // SCALE-Sim adds the padded fold's rows + columns per fold (REPORT.md quirk 4).
    v.ofmap_sram_writes = g.m * g.n + m.folds() * (m.rows + m.cols);
    return v;
  }

  std::unique_ptr<ArrayEngine> make_engine(const SystolicMapping& m,
                                           OperandValues values) const override {
    return make_output_stationary_engine(m, std::move(values));
  }
};

}  // namespace

const Dataflow& os_dataflow() {
  static const OsDataflow instance;
  return instance;
}

}  // namespace trainsim
