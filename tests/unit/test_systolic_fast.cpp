// Closed-form (fast) costs of the systolic dataflows on shapes small enough to derive by
// hand; the arithmetic is in the comments (conventions: dataflows/systolic.h).
#include <catch2/catch.hpp>

#include <stdexcept>
#include <string>

#include "dataflows/instances.h"
#include "dataflows/registry.h"
#include "sim/core/error.h"

using namespace trainsim;

namespace {

AcceleratorSpec array(int rows, int cols) {
  AcceleratorSpec a;
  a.name = "test";
  a.rows = rows;
  a.cols = cols;
  return a;
}

std::int64_t mapping_value(const OpStats& st, const std::string& key) {
  for (const auto& [k, v] : st.mapping)
    if (k == key) return v;
  FAIL("mapping has no '" << key << "'");
  return -1;
}

// M = 2, N = 3, K = 4 everywhere below: 24 MACs.
const Op kGemm = Op::make_gemm({2, 3, 4});

}  // namespace

TEST_CASE("systolic dataflows are registered and GEMM based", "[dataflow][systolic]") {
  for (const char* name : {"ws", "os", "is"}) {
    const Dataflow* d = find_dataflow(name);
    REQUIRE(d != nullptr);
    CHECK(d->name() == name);
    CHECK(d->gemm_based());
    CHECK_FALSE(d->description().empty());
  }
  CHECK(&ws_dataflow() == find_dataflow("ws"));
}

TEST_CASE("os fast model: M=2 N=3 K=4 on 2x2", "[dataflow][systolic]") {
  // Sr = M = 2 -> FR = 1; Sc = N = 3 -> FC = 2 (2 + 1 ragged); F = 2; T = K = 4.
  // L = T + R + C - 2 = 6; cycles = 2 * 6 - 1 = 11.
  const OpStats st = os_dataflow().evaluate(kGemm, array(2, 2));
  CHECK(st.macs == 24);
  CHECK(st.compute_cycles == 11);
  CHECK(st.pes == 4);
  CHECK(mapping_value(st, "row_folds") == 1);
  CHECK(mapping_value(st, "col_folds") == 2);
  CHECK(mapping_value(st, "folds") == 2);
  CHECK(mapping_value(st, "stream_dim") == 4);
  CHECK(mapping_value(st, "fold_cycles") == 6);
  // Buffer: A (2 x 4) once per column fold: 2 * 8 = 16; B (4 x 3) once per row fold: 12;
  // the 6 outputs written once, nothing read back.
  CHECK(st.buffer.reads[kIfmap] == 16);
  CHECK(st.buffer.reads[kFilter] == 12);
  CHECK(st.buffer.reads[kOfmap] == 0);
  CHECK(st.buffer.writes[kOfmap] == 6);
  CHECK(st.buffer.writes[kIfmap] == 0);
  // Both operands move: one latch + hop per MAC each; psum read + write per MAC; one hop per
  // output to the buffer.
  for (int o = 0; o < kNumOperands; ++o) CHECK(st.rf.reads[o] == 24);
  CHECK(st.rf.writes[kIfmap] == 24);
  CHECK(st.rf.writes[kFilter] == 24);
  CHECK(st.rf.writes[kOfmap] == 24);
  CHECK(st.noc.reads[kIfmap] == 24);
  CHECK(st.noc.reads[kFilter] == 24);
  CHECK(st.noc.writes[kOfmap] == 6);
  CHECK(st.noc.reads[kOfmap] == 0);

  ScaleSimView v;
  REQUIRE(os_dataflow().scalesim_view(kGemm, array(2, 2), v));
  CHECK(v.compute_cycles == 11);
  CHECK(v.ifmap_sram_reads == 16);
  CHECK(v.filter_sram_reads == 12);
  CHECK(v.ofmap_sram_writes == 6 + 2 * (2 + 2));  // SCALE-Sim's + F * (R + C) artifact
}

TEST_CASE("ws fast model: M=2 N=3 K=4 on 2x2", "[dataflow][systolic]") {
  // Sr = K = 4 -> FR = 2; Sc = N = 3 -> FC = 2; F = 4; T = M = 2.
  // L = R + T + R + C - 2 = 2 + 2 + 2 + 2 - 2 = 6; cycles = 4 * 6 - 1 = 23.
  const OpStats st = ws_dataflow().evaluate(kGemm, array(2, 2));
  CHECK(st.macs == 24);
  CHECK(st.compute_cycles == 23);
  CHECK(mapping_value(st, "row_folds") == 2);
  CHECK(mapping_value(st, "col_folds") == 2);
  CHECK(mapping_value(st, "folds") == 4);
  CHECK(mapping_value(st, "fold_cycles") == 6);
  // A read once per column fold: 2 * 8 = 16; B once: 12; every row fold writes its 6
  // partial sums (12 writes) and the second one reads the first's back (6 reads).
  CHECK(st.buffer.reads[kIfmap] == 16);
  CHECK(st.buffer.reads[kFilter] == 12);
  CHECK(st.buffer.reads[kOfmap] == 6);
  CHECK(st.buffer.writes[kOfmap] == 12);
  // B shifts in from the top: per column and row fold the rows latch 1 + 2 = 3 times; 3
  // columns x 2 row folds x 3 = 18. A and psums: one latch / hop per MAC.
  CHECK(st.rf.writes[kFilter] == 18);
  CHECK(st.noc.reads[kFilter] == 18);
  CHECK(st.rf.writes[kIfmap] == 24);
  CHECK(st.noc.reads[kIfmap] == 24);
  CHECK(st.rf.writes[kOfmap] == 24);
  CHECK(st.noc.writes[kOfmap] == 24);
  for (int o = 0; o < kNumOperands; ++o) CHECK(st.rf.reads[o] == 24);

  ScaleSimView v;
  REQUIRE(ws_dataflow().scalesim_view(kGemm, array(2, 2), v));
  CHECK(v.compute_cycles == 23);
  CHECK(v.ifmap_sram_reads == 16);
  CHECK(v.filter_sram_reads == 12);
  CHECK(v.ofmap_sram_writes == 12);
}

TEST_CASE("an output accumulator takes the psums of the folds it holds", "[dataflow][systolic]") {
  // ws: a fold streams T = M = 2 rows over 2 columns: 4 outputs. With room for them, the
  // 2 row folds write their 6 sums each to the accumulator (12), each read once (6 by the
  // second fold's read-modify-write, 6 by the drain), and the buffer takes the 6 outputs.
  AcceleratorSpec a = array(2, 2);
  a.accumulator.words = 4;
  const OpStats ws = ws_dataflow().evaluate(kGemm, a);
  CHECK(ws.acc.writes[kOfmap] == 12);
  CHECK(ws.acc.reads[kOfmap] == 12);
  CHECK(ws.buffer.writes[kOfmap] == 6);
  CHECK(ws.buffer.reads[kOfmap] == 0);
  CHECK(ws.compute_cycles == 23);  // the array's time does not change
  // os: outputs pass through on their way to the buffer (6 in, 6 out).
  const OpStats os = os_dataflow().evaluate(kGemm, a);
  CHECK(os.acc.writes[kOfmap] == 6);
  CHECK(os.acc.reads[kOfmap] == 6);
  CHECK(os.buffer.writes[kOfmap] == 6);
  // One word short of a fold: the buffer as without an accumulator.
  a.accumulator.words = 3;
  const OpStats spill = ws_dataflow().evaluate(kGemm, a);
  CHECK(spill.acc == AccessCounts{});
  CHECK(spill.buffer.writes[kOfmap] == 12);
  CHECK(spill.buffer.reads[kOfmap] == 6);
  // is: T = N = 3 over M = 2 columns: 6 words per fold.
  a.accumulator.words = 5;
  CHECK(is_dataflow().evaluate(kGemm, a).acc == AccessCounts{});
  a.accumulator.words = 6;
  CHECK(is_dataflow().evaluate(kGemm, a).acc.writes[kOfmap] == 12);
}

TEST_CASE("is fast model: M=2 N=3 K=4 on 2x2", "[dataflow][systolic]") {
  // Sr = K = 4 -> FR = 2; Sc = M = 2 -> FC = 1; F = 2; T = N = 3.
  // L = 2 + 3 + 2 + 2 - 2 = 7; cycles = 2 * 7 - 1 = 13.
  const OpStats st = is_dataflow().evaluate(kGemm, array(2, 2));
  CHECK(st.macs == 24);
  CHECK(st.compute_cycles == 13);
  CHECK(mapping_value(st, "row_folds") == 2);
  CHECK(mapping_value(st, "col_folds") == 1);
  CHECK(mapping_value(st, "fold_cycles") == 7);
  // A read once: 8; B once per column fold: 12; psums as for ws: 12 writes, 6 reads.
  CHECK(st.buffer.reads[kIfmap] == 8);
  CHECK(st.buffer.reads[kFilter] == 12);
  CHECK(st.buffer.reads[kOfmap] == 6);
  CHECK(st.buffer.writes[kOfmap] == 12);
  // A^T shifts in from the top: 2 columns x 2 row folds x (1 + 2) = 12 latches.
  CHECK(st.rf.writes[kIfmap] == 12);
  CHECK(st.noc.reads[kIfmap] == 12);
  CHECK(st.rf.writes[kFilter] == 24);
  CHECK(st.noc.writes[kOfmap] == 24);

  ScaleSimView v;
  REQUIRE(is_dataflow().scalesim_view(kGemm, array(2, 2), v));
  CHECK(v.compute_cycles == 13);
  CHECK(v.ifmap_sram_reads == 8);
  CHECK(v.filter_sram_reads == 12);
  CHECK(v.ofmap_sram_writes == 12);
}

TEST_CASE("ragged folds cost full time and count only used PEs", "[dataflow][systolic]") {
  // ws, M = 5, N = 1, K = 4 on 3 x 2: Sr = K = 4 -> FR = 2 (3 rows, then 1); Sc = N = 1 ->
  // FC = 1 (one of two columns used); L = 3 + 5 + 3 + 2 - 2 = 11 whatever is used;
  // cycles = 2 * 11 - 1 = 21.
  const Op op = Op::make_gemm({5, 1, 4});
  const OpStats st = ws_dataflow().evaluate(op, array(3, 2));
  CHECK(st.compute_cycles == 21);
  CHECK(st.pes == 6);
  // Filter latches: 1 column x (1 + 2 + 3 for the full fold, 1 for the ragged one) = 7.
  CHECK(st.rf.writes[kFilter] == 7);
  CHECK(st.buffer.reads[kFilter] == 4);
  CHECK(st.buffer.writes[kOfmap] == 2 * 5);
  CHECK(st.buffer.reads[kOfmap] == 5);
  // Utilization: 20 MACs over 21 cycles x 6 PEs.
  CHECK(st.utilization() == Approx(20.0 / (21.0 * 6.0)));
}

TEST_CASE("conv ops are costed as their lowered GEMM", "[dataflow][systolic]") {
  // conv fw 1x2x5x5, 3 filters 3x3, stride 1, pad 1: M = 25, N = 3, K = 18.
  ConvShape c;
  c.channels = 2, c.height = 5, c.width = 5, c.filters = 3, c.kernel_h = 3, c.kernel_w = 3;
  c.pad = 1;
  const AcceleratorSpec acc = array(4, 4);
  for (OpRole role : {OpRole::kForward, OpRole::kBackwardData, OpRole::kBackwardWeight}) {
    const Op conv = Op::make_conv(c, role);
    const Op gemm = Op::make_gemm(lower_to_gemm(conv), role);
    for (const char* name : {"ws", "os", "is"}) {
      const Dataflow& d = dataflow_or_throw(name);
      const OpStats a = d.evaluate(conv, acc), b = d.evaluate(gemm, acc);
      CHECK(a.macs == b.macs);
      CHECK(a.compute_cycles == b.compute_cycles);
      CHECK(a.buffer == b.buffer);
    }
  }
  // os fw: FR = ceil(25/4) = 7, FC = 1, L = 18 + 6 = 24, cycles = 7 * 24 - 1 = 167.
  CHECK(os_dataflow().evaluate(Op::make_conv(c), acc).compute_cycles == 167);
}

TEST_CASE("systolic dataflows reject element-wise ops and empty arrays", "[dataflow][systolic]") {
  const Op elt = Op::make_eltwise({100, 2, 1, 1}, OpRole::kUpdate);
  CHECK_THROWS_AS(ws_dataflow().evaluate(elt, array(2, 2)), std::invalid_argument);
  CHECK_THROWS_AS(os_dataflow().evaluate(kGemm, array(0, 2)), UserError);
  // An empty GEMM costs nothing (and its engine is done at once).
  const Op empty = Op::make_gemm({0, 3, 4});
  const OpStats st = is_dataflow().evaluate(empty, array(2, 2));
  CHECK(st.macs == 0);
  CHECK(st.compute_cycles == 0);
  auto eng = is_dataflow().engine(empty, array(2, 2), {{}, std::vector<double>(12, 1.0)});
  CHECK_FALSE(eng->step());
  CHECK(eng->stats().compute_cycles == 0);
}
