// Row-stationary dataflow: hand-derived counts, cycle engine vs closed form on random
// shapes (every counter, and the numeric result vs a naive convolution), multicast between
// a pass's sets and chained partial sums against a pass-by-pass count, row chunks for
// filter rows longer than the RFs, every training op of LeNet-5 / AlexNet on the Eyeriss
// RFs, RF errors.
// Notation as in docs/rs_mapping.md: R x S kernel, E x F output, h x w set footprint,
// per-job p filters x q channels, U stride.
#include <catch2/catch.hpp>

#include "sim/accel/reference.h"

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "dataflows/rs.h"
#include "dataflows/rs_mapping.h"
#include "sim/core/error.h"

using namespace trainsim;

namespace {

AcceleratorSpec array(int rows, int cols, std::int64_t in = 12, std::int64_t wt = 224,
                      std::int64_t ps = 24) {
  AcceleratorSpec a;
  a.rows = rows;
  a.cols = cols;
  a.rf.input_words = in;
  a.rf.weight_words = wt;
  a.rf.psum_words = ps;
  return a;
}

Op conv(std::int64_t n, std::int64_t c, std::int64_t h, std::int64_t w, std::int64_t f,
        std::int64_t k, std::int64_t stride = 1, std::int64_t pad = 0,
        OpRole role = OpRole::kForward) {
  ConvShape s;
  s.batch = n;
  s.channels = c;
  s.height = h;
  s.width = w;
  s.filters = f;
  s.kernel_h = s.kernel_w = k;
  s.stride = stride;
  s.pad = pad;
  return Op::make_conv(s, role);
}

std::int64_t mapping_value(const OpStats& st, const std::string& name) {
  for (const auto& [k, v] : st.mapping)
    if (k == name) return v;
  FAIL("no mapping entry " << name);
  return -1;
}

struct Run {
  OpStats stats;
  std::vector<double> result, expected;
  std::int64_t steps = 0;
};

Run run_engine(const Op& op, const AcceleratorSpec& acc, std::mt19937& rng) {
  const ConvShape c = lower_to_conv(op);
  std::uniform_int_distribution<int> val(-3, 3);
  OperandValues v;
  v.a.resize(c.batch * c.channels * c.height * c.width);
  v.b.resize(c.filters * c.channels * c.kernel_h * c.kernel_w);
  for (double& x : v.a) x = val(rng);
  for (double& x : v.b) x = val(rng);
  Run r;
  r.expected = reference_conv(c, v.a, v.b);
  auto eng = rs_dataflow().engine(op, acc, v);
  while (eng->step()) ++r.steps;
  CHECK_FALSE(eng->step());  // stays done
  r.stats = eng->stats();
  r.result = eng->result();
  return r;
}

void require_same(const OpStats& fast, const OpStats& cyc) {
  CHECK(cyc.macs == fast.macs);
  CHECK(cyc.compute_cycles == fast.compute_cycles);
  CHECK(cyc.stall_cycles == fast.stall_cycles);
  CHECK(cyc.vector_ops == fast.vector_ops);
  CHECK(cyc.pes == fast.pes);
  CHECK(cyc.mapping == fast.mapping);
  for (int o = 0; o < kNumOperands; ++o) {
    INFO("operand " << operand_name(o));
    CHECK(cyc.rf.reads[o] == fast.rf.reads[o]);
    CHECK(cyc.rf.writes[o] == fast.rf.writes[o]);
    CHECK(cyc.noc.reads[o] == fast.noc.reads[o]);
    CHECK(cyc.noc.writes[o] == fast.noc.writes[o]);
    CHECK(cyc.buffer.reads[o] == fast.buffer.reads[o]);
    CHECK(cyc.buffer.writes[o] == fast.buffer.writes[o]);
    CHECK(cyc.acc.reads[o] == fast.acc.reads[o]);
    CHECK(cyc.acc.writes[o] == fast.acc.writes[o]);
    CHECK(cyc.dram_read_bytes[o] == fast.dram_read_bytes[o]);
    CHECK(cyc.dram_write_bytes[o] == fast.dram_write_bytes[o]);
  }
}

// Both fidelities must give `want` and agree; the engine must also compute the conv.
void check_both(const Op& op, const AcceleratorSpec& acc, const OpStats& want) {
  const OpStats fast = rs_dataflow().evaluate(op, acc);
  require_same(want, fast);
  std::mt19937 rng(7);
  const Run r = run_engine(op, acc, rng);
  require_same(want, r.stats);
  CHECK(r.steps == want.compute_cycles);
  CHECK(r.result == r.expected);
}

}  // namespace

TEST_CASE("rs: identity of the dataflow", "[dataflow][rs]") {
  CHECK(rs_dataflow().name() == "rs");
  CHECK_FALSE(rs_dataflow().gemm_based());
  CHECK(&rs_dataflow() == &rs_dataflow());
}

TEST_CASE("rs: 3x3 filter on a 5x5 input, one set on a 3x3 array (by hand)", "[dataflow][rs]") {
  // R = S = 3, E = F = 3, H = W = 5, U = 1. Logical set R x E = 3 x 3 fits exactly: one
  // class (h = 3, w = 3), one set per pass, one job. RFs 12/224/24: q = min(C=1, 12/3,
  // 224/3) = 1, p = min(M=1, 24, 224/3) = 1.
  const Op op = conv(1, 1, 5, 5, 1, 3);
  OpStats want;
  want.pes = 9;
  want.mapping = {{"set_rows", 3}, {"set_cols", 3},   {"segments", 1},      {"strips", 1},
                  {"p", 1},        {"q", 1},          {"sets_per_pass", 1}, {"jobs", 1},
                  {"passes", 1},   {"row_chunks", 1}, {"chunk_cols", 3}};
  // Cycles: preload p q S = 3 weights, F = 3 columns of p q S = 3 MACs, drain h = 3
  // (2 hops up the skewed column + 1 into the buffer): 3 + 9 + 3 = 15.
  want.compute_cycles = 15;
  want.macs = 81;  // 9 PEs x F = 3 outputs x S = 3 taps
  // Each MAC reads a weight, an input and a psum from RF and writes the psum.
  want.rf.reads = {81, 81, 81};
  want.rf.writes = {0, 0, 81};
  // Weights: 3 per PE, preloaded over the NoC (9 PEs x 3 = 27 RF writes, 27 NoC words);
  // each filter row is read once from the buffer and multicast along its PE row: 3 x 3 = 9.
  want.rf.writes[kFilter] += 27;
  want.noc.reads[kFilter] = 27;
  want.buffer.reads[kFilter] = 9;
  // Inputs: per PE a first window of S = 3 words, then min(U, S) = 1 new word for each of
  // the other F - 1 = 2 columns: 5 words, x 9 PEs = 45. The set needs rows j + i = 0..4
  // (5 distinct), each read once (diagonal multicast), 5 columns each: 25 buffer reads.
  want.rf.writes[kIfmap] += 45;
  want.noc.reads[kIfmap] = 45;
  want.buffer.reads[kIfmap] = 25;
  // Psums: 3 columns x 3 outputs = 9 output psums; each of the h = 3 PEs of a column reads
  // its psum out (27 RF reads) and sends it one hop (2 up + 1 to the buffer: 27 NoC words);
  // the 2 upper PEs receive one into their psum RF (18 RF writes). 9 buffer writes, no
  // read-modify-write (single pass, single channel group).
  want.rf.reads[kOfmap] += 27;
  want.rf.writes[kOfmap] += 18;
  want.noc.writes[kOfmap] = 27;
  want.buffer.writes[kOfmap] = 9;
  check_both(op, array(3, 3), want);
  CHECK(rs_dataflow().evaluate(op, array(3, 3)).utilization() == Approx(81.0 / (9 * 15)));
}

TEST_CASE("rs: folding the filter rows and the output rows onto a 2x2 array (by hand)",
          "[dataflow][rs]") {
  // Same conv. R = 3 > rows = 2: segments of filter rows {0,1} and {2}; E = 3 > cols = 2:
  // strips of output rows {0,1} and {2}. Four classes, one job each:
  //   (h2, w2): 1 set per pass;  (h2, w1): 1 x 2 sets;  (h1, w2): 2 x 1;  (h1, w1): 2 x 2.
  // Each class holds a single job, so 4 passes.
  const Op op = conv(1, 1, 5, 5, 1, 3);
  OpStats want;
  want.pes = 4;
  want.mapping = {{"set_rows", 3}, {"set_cols", 3},   {"segments", 2},      {"strips", 2},
                  {"p", 1},        {"q", 1},          {"sets_per_pass", 1}, {"jobs", 4},
                  {"passes", 4},   {"row_chunks", 1}, {"chunk_cols", 3}};
  // Cycles per pass (F + 1) p q S + h = 12 + h: 14 + 14 + 13 + 13 = 54.
  want.compute_cycles = 54;
  want.macs = 81;  // sum of h w over classes = 9 PE-rows, x F S = 9
  want.rf.reads = {81, 81, 81};
  want.rf.writes = {0, 0, 81};
  // Weights: 9 PE placements x 3 = 27; buffer: sum of h x S = (2 + 2 + 1 + 1) x 3 = 18.
  want.rf.writes[kFilter] += 27;
  want.noc.reads[kFilter] = 27;
  want.buffer.reads[kFilter] = 18;
  // Inputs: 9 placements x 5 words = 45. Distinct rows e + r per class: {0,1,2},
  // {2,3}, {2,3}, {4} = 8 rows x 5 columns = 40 buffer reads (folding loses the reuse).
  want.rf.writes[kIfmap] += 45;
  want.noc.reads[kIfmap] = 45;
  want.buffer.reads[kIfmap] = 40;
  // Psums per class: w F p outputs, h hops each: 6x2 + 3x2 + 6x1 + 3x1 = 27 NoC words and
  // 27 RF reads; RF writes on arrival w F (h - 1) = 6 + 3 = 9. Buffer writes: sum of w F =
  // 18 for 9 outputs: the second segment's 9 write-backs read-modify-write.
  want.rf.reads[kOfmap] += 27;
  want.rf.writes[kOfmap] += 9;
  want.noc.writes[kOfmap] = 27;
  want.buffer.writes[kOfmap] = 18;
  want.buffer.reads[kOfmap] = 9;
  check_both(op, array(2, 2), want);
}

TEST_CASE("rs: replication of sets over filters and channels on a 6x3 array (by hand)",
          "[dataflow][rs]") {
  // 2 channels, 2 filters, 5x5 input, 3x3 kernel; RFs 3/3/1 words allow only p = q = 1,
  // so there are 2 x 2 = 4 jobs (fg, cg) in the order (0,0) (1,0) (0,1) (1,1) (filter groups
  // innermost: that order reads less than images innermost, of which there is one). The 3x3
  // set fits twice vertically in 6x3 (vr = 2, vc = 1): 2 passes of 2 jobs, each pass's two
  // jobs on the same channel.
  const Op op = conv(1, 2, 5, 5, 2, 3);
  OpStats want;
  want.pes = 18;
  want.mapping = {{"set_rows", 3}, {"set_cols", 3},   {"segments", 1},      {"strips", 1},
                  {"p", 1},        {"q", 1},          {"sets_per_pass", 2}, {"jobs", 4},
                  {"passes", 2},   {"row_chunks", 1}, {"chunk_cols", 3}};
  want.compute_cycles = 2 * 15;  // each pass as the single-set case
  want.macs = 4 * 81;
  want.rf.reads = {324, 324, 324 + 4 * 27};
  want.rf.writes = {4 * 45, 4 * 27, 324 + 4 * 18};
  want.noc.reads = {4 * 45, 4 * 27, 0};
  want.noc.writes = {0, 0, 4 * 27};
  // Buffer: per job 9 weight reads; per pass 25 input reads, multicast to both sets; 4 x 9
  // psum write-backs for 2 x 9 outputs, so 18 read-modify-writes (the second channel group
  // of each filter).
  want.buffer.reads = {50, 36, 18};
  want.buffer.writes = {0, 0, 36};
  check_both(op, array(6, 3, 3, 3, 1), want);
}

TEST_CASE("rs: stacked sets chain the partial sums of one output (by hand)", "[dataflow][rs]") {
  // The replication case above with array.chain_psums: the 3x3 sets stack 2 high in 6x3,
  // and jobs run channel groups innermost, (fg, cg) = (0,0) (0,1) | (1,0) (1,1): each pass
  // is one filter's two channels, the upper set adds the lower one's partial sums at its
  // bottom row and alone writes back. A pass drains through both sets: (F + 1) p q s +
  // 2 h = 12 + 6 cycles.
  const Op op = conv(1, 2, 5, 5, 2, 3);
  AcceleratorSpec acc = array(6, 3, 3, 3, 1);
  acc.chain_psums = true;
  OpStats want;
  want.pes = 18;
  want.mapping = {{"set_rows", 3}, {"set_cols", 3},   {"segments", 1},      {"strips", 1},
                  {"p", 1},        {"q", 1},          {"sets_per_pass", 2}, {"jobs", 4},
                  {"passes", 2},   {"row_chunks", 1}, {"chunk_cols", 3},    {"chained_psums", 1}};
  want.compute_cycles = 2 * 18;
  want.macs = 4 * 81;
  want.rf.reads = {324, 324, 324 + 4 * 27};
  // The upper set's bottom PEs each receive 9 partial sums from below: 2 x 9 more writes.
  want.rf.writes = {4 * 45, 4 * 27, 324 + 4 * 18 + 2 * 9};
  want.noc.reads = {4 * 45, 4 * 27, 0};
  want.noc.writes = {0, 0, 4 * 27};
  // Every job reads its own inputs (other channels) and weights; 2 x 9 write-backs, each the
  // first to its outputs: no read-modify-writes.
  want.buffer.reads = {100, 36, 0};
  want.buffer.writes = {0, 0, 18};
  check_both(op, acc, want);
  // On 4 rows the 3-row set fits once a column: nothing to chain, and the job order stays the
  // multicast's (filter groups innermost) with a pass's drain of h cycles.
  AcceleratorSpec one_high = array(4, 3, 3, 3, 1);
  one_high.chain_psums = true;
  const RsMapping m = map_rs(op, one_high);
  CHECK_FALSE(m.chained);
  CHECK(m.order == RsOrder::kFilters);
  CHECK(m.drain(m.classes.front()) == 3);
}

TEST_CASE("rs: sets of a pass share weights where images are the inner loop (by hand)",
          "[dataflow][rs]") {
  // 2 images of 1 channel, 3x3, 4 filters of 3x3 (E = F = 1); RFs 3/6/2: q = 1, p = 2, so 2
  // filter groups and 4 jobs of a 3x1 set, 2 side by side on a 3x2 array: 2 passes. A job
  // reads 9 inputs and h p q s = 18 weights. Filter groups innermost: (n, fg) = (0,0) (0,1)
  // | (1,0) (1,1), each pass one image's inputs, 2 x 9 + 4 x 18 = 90 words. Images
  // innermost: (0,0) (1,0) | (0,1) (1,1), each pass one group's weights, 4 x 9 + 2 x 18 =
  // 72: the mapping takes that order.
  const Op op = conv(2, 1, 3, 3, 4, 3);
  const AcceleratorSpec acc = array(3, 2, 3, 6, 2);
  const OpStats fast = rs_dataflow().evaluate(op, acc);
  CHECK(mapping_value(fast, "p") == 2);
  CHECK(mapping_value(fast, "passes") == 2);
  CHECK(mapping_value(fast, "images_inner") == 1);
  CHECK(fast.buffer.reads[kIfmap] == 4 * 9);
  CHECK(fast.buffer.reads[kFilter] == 2 * 18);
  CHECK(fast.rf.writes[kFilter] == 4 * 18);  // every set still receives its weights
  std::mt19937 rng(3);
  const Run r = run_engine(op, acc, rng);
  require_same(fast, r.stats);
  CHECK(r.result == r.expected);
}

TEST_CASE("rs: p filters x q channels interleaved in one PE (by hand)", "[dataflow][rs]") {
  // 2 channels, 3 filters, RFs 12/224/24: q = min(2, 12/3, 224/3) = 2,
  // p = min(3, 24, 224/(2*3)) = 3: one job; each PE does p q S = 18 MACs per output.
  const Op op = conv(1, 2, 5, 5, 3, 3);
  const OpStats st = rs_dataflow().evaluate(op, array(3, 3));
  CHECK(mapping_value(st, "p") == 3);
  CHECK(mapping_value(st, "q") == 2);
  CHECK(mapping_value(st, "passes") == 1);
  CHECK(st.compute_cycles == (3 + 1) * 18 + 3);  // preload 18, 3 columns x 18, drain 3
  CHECK(st.macs == 9 * 3 * 18);
  CHECK(st.rf.writes[kFilter] == 9 * 18);          // 18 weights per PE
  CHECK(st.buffer.reads[kFilter] == 3 * 18);       // once per PE row
  CHECK(st.rf.writes[kIfmap] == 9 * 2 * (3 + 2));  // q windows
  CHECK(st.buffer.reads[kIfmap] == 2 * 25);        // q channels x 5 rows x 5 columns
  CHECK(st.buffer.writes[kOfmap] == 3 * 9);        // p filters x 9 outputs, no RMW
  CHECK(st.buffer.reads[kOfmap] == 0);
}

TEST_CASE("rs: partial sums kept in the PEs across the channel loop (by hand)", "[dataflow][rs]") {
  // 4 channels of 4 x 4 (pad 1), 2 filters of 3 x 3 on a 3 x 4 array: one set (h = 3, w = 4,
  // E = F = 4) per pass. RFs of 3 input, 6 weight and 8 psum words: S' = 3,
  // q = min(4, 1, 2) = 1, p = min(2, 8, 6 / 3) = 2.
  const Op op = conv(1, 4, 4, 4, 2, 3, 1, 1);
  AcceleratorSpec acc = array(3, 4, 3, 6, 8);
  // As Eyeriss: 4 jobs of one channel, (F + 1) p q S + h = 5 x 2 x 3 + 3 = 33 cycles each;
  // every job writes its 32 sums back (128), all but the first job's as read-modify-writes.
  const OpStats greedy = rs_dataflow().evaluate(op, acc);
  CHECK(mapping_value(greedy, "q") == 1);
  CHECK(greedy.compute_cycles == 4 * 33);
  CHECK(greedy.buffer.writes[kOfmap] == 128);
  CHECK(greedy.buffer.reads[kOfmap] == 96);
  // rf.keep_psums, and 8 words hold p F = 2 x 4 sums: one job runs the 4 channels one after
  // another (weights and input window reloaded per channel, as before), 5 x 2 x 4 x 3 + 3 =
  // 123 cycles, and writes its 32 outputs once; the inputs and weights move as before (p is
  // the same).
  acc.rf.keep_psums = true;
  const OpStats resident = rs_dataflow().evaluate(op, acc);
  CHECK(mapping_value(resident, "psum_resident") == 1);
  CHECK(mapping_value(resident, "p") == 2);
  CHECK(mapping_value(resident, "q") == 4);
  CHECK(resident.compute_cycles == 123);
  CHECK(resident.buffer.writes[kOfmap] == 32);
  CHECK(resident.buffer.reads[kOfmap] == 0);
  CHECK(resident.buffer.reads[kIfmap] == greedy.buffer.reads[kIfmap]);
  CHECK(resident.buffer.reads[kFilter] == greedy.buffer.reads[kFilter]);
  CHECK(resident.macs == greedy.macs);
  // The cycle engine runs it to the same counts and the exact convolution.
  std::mt19937 rng(5);
  const Run r = run_engine(op, acc, rng);
  require_same(resident, r.stats);
  CHECK(r.steps == 123);
  CHECK(r.result == r.expected);
  // A psum RF of 3 words cannot hold a row of F = 4: the sums drain after each group.
  acc.rf.psum_words = 3;
  const OpStats short_rf = rs_dataflow().evaluate(op, acc);
  CHECK(short_rf.compute_cycles == 4 * 33);
  CHECK(short_rf.buffer.writes[kOfmap] == 128);
  for (const auto& [k, v] : short_rf.mapping) CHECK(k != "psum_resident");
}

TEST_CASE("rs: cycle engine matches the closed form and the convolution on random shapes",
          "[dataflow][rs]") {
  std::mt19937 rng(20160618);
  auto uni = [&](std::int64_t lo, std::int64_t hi) {
    return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng);
  };
  const int kShapes = 300;
  int checked = 0, chunked = 0, held = 0, resident = 0, images_inner = 0, chained = 0,
      fewer_drains = 0;
  for (int t = 0; t < kShapes; ++t) {
    Op op;
    const int kind = static_cast<int>(uni(0, 5));
    if (kind == 0) {
      op = Op::make_gemm({uni(1, 12), uni(1, 6), uni(1, 8)});
    } else {
      const std::int64_t h = uni(1, 12), w = uni(1, 12), pad = uni(0, 2);
      const std::int64_t kmax = std::min<std::int64_t>({5, h + 2 * pad, w + 2 * pad});
      const OpRole role = kind == 4   ? OpRole::kBackwardData
                          : kind == 5 ? OpRole::kBackwardWeight
                                      : OpRole::kForward;
      op = conv(uni(1, 2), uni(1, 4), h, w, uni(1, 4), uni(1, kmax), uni(1, 2), pad, role);
    }
    const ConvShape c = lower_to_conv(op);
    // Arrays: 1x1, 1xN, Nx1 and ragged ones; RFs from the minimum upward so that p and q
    // take ragged values too. Every third shape gets RFs of a few words, mostly smaller
    // than a filter row, so that rows are chunked (ragged last chunks included).
    int rows = static_cast<int>(uni(1, 6)), cols = static_cast<int>(uni(1, 6));
    if (t % 10 == 0) rows = cols = 1;
    if (t % 10 == 1) rows = 1;
    if (t % 10 == 2) cols = 1;
    const std::int64_t S = c.kernel_w;
    AcceleratorSpec acc = t % 3 == 0 ? array(rows, cols, uni(1, S), uni(1, 2 * S), uni(1, 5))
                                     : array(rows, cols, S * uni(1, 3) + uni(0, 2),
                                             S * uni(1, 6) + uni(0, 4), uni(1, 5));
    // Every fourth with an output accumulator that holds the outputs (room for them and one
    // word more) or is one word short, so both rules are checked.
    const std::int64_t outputs = c.batch * c.filters * c.out_h() * c.out_w();
    if (t % 4 == 1) acc.accumulator.words = outputs + (t % 8 == 1 ? 1 : -1);
    // Half keep their partial sums in the PEs where the psum RF holds a row of them; a third
    // of all, among the others, chain them up stacked sets.
    acc.rf.keep_psums = t % 2 == 0;
    acc.chain_psums = t % 4 == 1 || t % 12 == 3;
    INFO("shape " << t << ": " << op.describe() << " on " << rows << "x" << cols << " RF "
                  << acc.rf.input_words << "/" << acc.rf.weight_words << "/" << acc.rf.psum_words
                  << ", accumulator " << acc.accumulator.words
                  << (acc.rf.keep_psums ? ", keep_psums" : "")
                  << (acc.chain_psums ? ", chain_psums" : ""));
    const OpStats fast = rs_dataflow().evaluate(op, acc);
    CHECK(fast.macs == static_cast<Count>(c.macs()));
    const Run r = run_engine(op, acc, rng);
    require_same(fast, r.stats);
    CHECK(r.steps == fast.compute_cycles);
    CHECK(r.result == r.expected);
    ++checked;
    if (mapping_value(fast, "row_chunks") > 1) ++chunked;
    for (const auto& [k, v] : fast.mapping) {
      resident += k == "psum_resident";
      images_inner += k == "images_inner";
      chained += k == "chained_psums";
    }
    if (acc.chain_psums) {  // chains that did take write-backs off
      AcceleratorSpec unchained = acc;
      unchained.chain_psums = false;
      const OpStats apart = rs_dataflow().evaluate(op, unchained);
      const auto drains = [](const OpStats& x) {
        return x.buffer.writes[kOfmap] + x.acc.writes[kOfmap];
      };
      if (drains(fast) < drains(apart)) ++fewer_drains;
      CHECK(drains(fast) <= drains(apart));
      CHECK(fast.compute_cycles >= apart.compute_cycles);  // the skew spans the stack
    }
    if (fast.acc.writes[kOfmap] > 0) {
      ++held;
      CHECK(fast.buffer.writes[kOfmap] == static_cast<Count>(outputs));
      CHECK(fast.buffer.reads[kOfmap] == 0);
      CHECK(fast.acc.reads[kOfmap] == fast.acc.writes[kOfmap]);
    }
  }
  CHECK(held >= kShapes / 10);
  CHECK(resident >= kShapes / 20);      // and partial sums kept in the PEs
  CHECK(images_inner >= kShapes / 20);  // and both job orders
  CHECK(chained >= kShapes / 20);       // and chained partial sums
  CHECK(fewer_drains >= kShapes / 30);  // that drain fewer
  CHECK(checked == kShapes);
  CHECK(chunked >= kShapes / 8);  // the sweep does exercise row chunks
}

TEST_CASE("rs: shared reads and chained drains equal a pass-by-pass count on large ops",
          "[dataflow][rs]") {
  // The closed form sums runs of equal inputs (weights, outputs) over passes (stacks) with a
  // floor sum; here every pass of every class is walked job by job (up to 229,376 jobs a
  // class, beyond the engine test's sizes). A job reads an operand unless the job before it
  // in the pass is of the same category and has the same inputs (image, channel group,
  // chunk) or weights (filter group, channel group, chunk); with chained partial sums it
  // drains unless the job after it in its stack is of the same category with the same
  // outputs (image, filter group); a pass lasts its longest job plus the stack's drain.
  struct Case {
    Op op;
    AcceleratorSpec acc;
  };
  auto chain = [](AcceleratorSpec a) {
    a.chain_psums = true;
    return a;
  };
  const std::vector<Case> cases = {
      {conv(16, 256, 13, 13, 384, 3, 1, 1), array(12, 14)},         // AlexNet CONV3: filters inner
      {conv(64, 3, 32, 32, 16, 3, 1, 1), array(12, 14, 3, 9, 16)},  // few filters: images inner
      {conv(8, 64, 28, 28, 64, 5, 1, 2), array(7, 9, 2, 4, 3)},     // row chunks, ragged groups
      {conv(4, 32, 56, 56, 32, 3, 1, 1, OpRole::kBackwardWeight), array(16, 16, 1, 1, 1)},
      {conv(16, 256, 13, 13, 384, 3, 1, 1), chain(array(12, 14))},       // 4 sets a stack
      {conv(8, 64, 28, 28, 64, 5, 1, 2), chain(array(12, 9, 2, 4, 3))},  // stacks of 2
      {conv(4, 30, 20, 20, 20, 3, 1, 1, OpRole::kBackwardData), chain(array(13, 5, 4, 7, 2))},
  };
  int orders[3] = {0, 0, 0};
  for (const Case& c : cases) {
    INFO(c.op.describe() << (c.acc.chain_psums ? ", chain_psums" : ""));
    const RsMapping m = map_rs(c.op, c.acc);
    Count inputs = 0, weights = 0, drains = 0;
    std::int64_t cycles = 0;
    for (const RsClass& k : m.classes) {
      const std::int64_t rows_read = m.real_rows(k), st = m.stack(k);
      for (std::int64_t pass = 0; pass < m.passes(k); ++pass) {
        const std::int64_t first = pass * k.rep();
        const std::int64_t last = std::min(first + k.rep(), m.jobs_per_class);
        std::int64_t longest = 0;
        for (std::int64_t idx = first; idx < last; ++idx) {
          const RsJob j = m.job(idx);
          longest = std::max(longest, m.job_cycles(j.p, j.q, j.s, m.drain(k)));
          if (idx > first) {
            const RsJob prev = m.job(idx - 1);
            const bool same = prev.p == j.p && prev.q == j.q && prev.s == j.s;
            if (!(same && prev.cg == j.cg && prev.k == j.k && prev.n == j.n))
              inputs += j.q * rows_read * m.chunk_real_cols[j.k];
            if (!(same && prev.cg == j.cg && prev.k == j.k && prev.fg == j.fg))
              weights += k.h * j.p * j.q * j.s;
          } else {
            inputs += j.q * rows_read * m.chunk_real_cols[j.k];
            weights += k.h * j.p * j.q * j.s;
          }
          bool top = true;
          if (idx + 1 < last && (idx + 1 - first) % st != 0) {
            const RsJob next = m.job(idx + 1);
            top = !(next.p == j.p && next.q == j.q && next.s == j.s && next.n == j.n &&
                    next.fg == j.fg);
          }
          if (top) drains += k.w * m.F * j.p;
        }
        cycles += longest;
      }
    }
    const OpStats st = rs_dataflow().evaluate(c.op, c.acc);
    CHECK(st.buffer.reads[kIfmap] == inputs);
    CHECK(st.buffer.reads[kFilter] == weights);
    CHECK(st.buffer.writes[kOfmap] == drains);
    CHECK(st.compute_cycles == cycles);
    ++orders[static_cast<int>(m.order)];
    if (c.acc.chain_psums) CHECK(m.chained);
  }
  CHECK(orders[0] > 0);
  CHECK(orders[1] > 0);
  CHECK(orders[2] > 0);
}

TEST_CASE("rs: cycle engine matches the closed form on Eyeriss RFs with long filter rows",
          "[dataflow][rs]") {
  // Eyeriss' RFs (12 input, 224 weight, 24 psum words) with the ops that need row chunks:
  // backward-weight convs of 12x12..28x28 layers (the lowered kernel is the output
  // gradient, S = Wo up to 32) and forward / backward-data convs with kernels wider than 12.
  std::mt19937 rng(2016);
  auto uni = [&](std::int64_t lo, std::int64_t hi) {
    return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng);
  };
  const int kShapes = 40;
  int chunked = 0;
  for (int t = 0; t < kShapes; ++t) {
    const std::int64_t hw = uni(12, 28), pad = uni(0, 2);
    Op op;
    if (t % 4 == 3) {
      // Kernels of 13..16 columns need a layer of at least that width.
      const std::int64_t k = uni(13, 16), side = std::max(hw, k);
      const OpRole role = t % 8 == 3 ? OpRole::kForward : OpRole::kBackwardData;
      op = conv(uni(1, 2), uni(1, 2), side, side, uni(1, 3), k, uni(1, 2), pad, role);
    } else {
      op = conv(uni(1, 2), uni(1, 3), hw, hw, uni(1, 3), uni(1, 5), uni(1, 2), pad,
                OpRole::kBackwardWeight);
    }
    const int rows = t % 2 ? 12 : static_cast<int>(uni(1, 8));
    const int cols = t % 2 ? 14 : static_cast<int>(uni(1, 8));
    AcceleratorSpec acc = array(rows, cols);
    acc.chain_psums = t % 3 == 0;  // row chunks of one output chain up stacked sets
    INFO("shape " << t << ": " << op.describe() << " on " << rows << "x" << cols
                  << (acc.chain_psums ? ", chain_psums" : ""));
    const OpStats fast = rs_dataflow().evaluate(op, acc);
    CHECK(fast.macs == static_cast<Count>(lower_to_conv(op).macs()));
    const Run r = run_engine(op, acc, rng);
    require_same(fast, r.stats);
    CHECK(r.steps == fast.compute_cycles);
    CHECK(r.result == r.expected);
    if (mapping_value(fast, "row_chunks") > 1) ++chunked;
  }
  CHECK(chunked >= kShapes / 2);
}

TEST_CASE("rs: a filter row longer than the input RF runs in two row chunks (by hand)",
          "[dataflow][rs]") {
  // The 3x3-on-5x5 conv of the first case (R = S = 3, E = F = 3, U = 1) on a 3x3 array,
  // but the input RF holds 2 words: S' = min(S = 3, 2, 224) = 2, so each filter row runs
  // as chunk 0 (kernel columns 0..1, s = 2) and chunk 1 (column 2, s = 1).
  // q = min(1, 2/2, 224/2) = 1, p = min(1, 24, 224/2) = 1. Jobs: one per chunk, longest
  // (s = 2) first; one set per pass, so 2 passes.
  const Op op = conv(1, 1, 5, 5, 1, 3);
  OpStats want;
  want.pes = 9;
  want.mapping = {{"set_rows", 3}, {"set_cols", 3},   {"segments", 1},      {"strips", 1},
                  {"p", 1},        {"q", 1},          {"sets_per_pass", 1}, {"jobs", 2},
                  {"passes", 2},   {"row_chunks", 2}, {"chunk_cols", 2}};
  // Cycles per job (F + 1) p q s + h: (4 x 2 + 3) + (4 x 1 + 3) = 11 + 7 = 18.
  want.compute_cycles = 18;
  want.macs = 81;  // 9 PEs x F = 3 outputs x (2 + 1) taps: chunking does not add MACs
  want.rf.reads = {81, 81, 81};
  want.rf.writes = {0, 0, 81};
  // Weights: each PE still receives its 3 weights once (2 + 1): 27 RF / NoC words, 9
  // buffer reads (3 rows x (2 + 1)).
  want.rf.writes[kFilter] += 27;
  want.noc.reads[kFilter] = 27;
  want.buffer.reads[kFilter] = 9;
  // Inputs are re-streamed per chunk: per PE s + (F - 1) min(U, s) = 2 + 2 = 4 for chunk 0
  // and 1 + 2 = 3 for chunk 1: 9 x 7 = 63 (45 without chunking). Buffer: the 5 rows of the
  // set, chunk 0 loading columns [x, x + 2) for x = 0..2 = 0..3 (4 columns), chunk 1 column
  // x + 2 = 2..4 (3 columns): 5 x (4 + 3) = 35 (25 without chunking).
  want.rf.writes[kIfmap] += 63;
  want.noc.reads[kIfmap] = 63;
  want.buffer.reads[kIfmap] = 35;
  // Psums: each chunk drains its 9 partial outputs like a whole job: 2 x 27 RF reads and
  // NoC words, 2 x 18 RF writes on arrival, 18 buffer write-backs for 9 outputs, of which
  // chunk 1's 9 are read-modify-writes onto chunk 0's.
  want.rf.reads[kOfmap] += 54;
  want.rf.writes[kOfmap] += 36;
  want.noc.writes[kOfmap] = 54;
  want.buffer.writes[kOfmap] = 18;
  want.buffer.reads[kOfmap] = 9;
  check_both(op, array(3, 3, 2, 224, 24), want);
}

TEST_CASE("rs: row chunks keep p and q within the RFs", "[dataflow][rs]") {
  // LeNet conv1 backward-weight: lowered kernel 28 x 28 (S = Wo = 28) over the 28x28 input
  // padded by 2, output 5 x 5, channels = batch 15, filters 6. Eyeriss RFs 12/224/24:
  // S' = 12, chunks 12 + 12 + 4; q = min(15, 12/12, 224/12) = 1; p = min(6, 24, 224/12) = 6.
  ConvShape s;
  s.batch = 15;
  s.channels = 1;
  s.height = s.width = 28;
  s.filters = 6;
  s.kernel_h = s.kernel_w = 5;
  s.pad = 2;
  const OpStats st =
      rs_dataflow().evaluate(Op::make_conv(s, OpRole::kBackwardWeight), array(12, 14));
  CHECK(mapping_value(st, "row_chunks") == 3);
  CHECK(mapping_value(st, "chunk_cols") == 12);
  CHECK(mapping_value(st, "q") == 1);
  CHECK(mapping_value(st, "p") == 6);
  CHECK(st.macs == 15 * 6 * 25 * 28 * 28);
}

namespace {

// AcceleratorSpec with the values of configs/accelerators/eyeriss_like.yaml that matter for
// the array side.
AcceleratorSpec eyeriss_like() {
  AcceleratorSpec a = array(12, 14, 12, 224, 24);
  a.word_bits = 16;
  return a;
}

ConvShape layer(std::int64_t n, std::int64_t c, std::int64_t hw, std::int64_t f, std::int64_t k,
                std::int64_t stride, std::int64_t pad) {
  ConvShape s;
  s.batch = n;
  s.channels = c;
  s.height = s.width = hw;
  s.filters = f;
  s.kernel_h = s.kernel_w = k;
  s.stride = stride;
  s.pad = pad;
  return s;
}

}  // namespace

TEST_CASE("rs: every training op of LeNet-5 and AlexNet maps on the Eyeriss RFs",
          "[dataflow][rs]") {
  const std::vector<ConvShape> layers = {
      layer(15, 1, 28, 6, 5, 1, 2),      // LeNet-5 conv1
      layer(15, 6, 14, 16, 5, 1, 0),     // LeNet-5 conv2
      layer(16, 3, 227, 96, 11, 4, 0),   // AlexNet CONV1
      layer(16, 96, 27, 256, 5, 1, 2),   // CONV2
      layer(16, 256, 13, 384, 3, 1, 1),  // CONV3
      layer(16, 384, 13, 384, 3, 1, 1),  // CONV4
      layer(16, 384, 13, 256, 3, 1, 1),  // CONV5
  };
  const AcceleratorSpec acc = eyeriss_like();
  int chunked = 0;
  for (const ConvShape& l : layers) {
    for (OpRole role : {OpRole::kForward, OpRole::kBackwardData, OpRole::kBackwardWeight}) {
      const Op op = Op::make_conv(l, role);
      INFO(op.describe());
      OpStats st;
      REQUIRE_NOTHROW(st = rs_dataflow().evaluate(op, acc));
      CHECK(st.macs == static_cast<Count>(lower_to_conv(op).macs()));
      CHECK(st.utilization() > 0.0);
      CHECK(st.utilization() <= 1.0);
      if (mapping_value(st, "row_chunks") > 1) ++chunked;
    }
  }
  // The backward-weight convs with S = Wo > 12 are chunked: LeNet conv1 (28), AlexNet
  // CONV1 (217, the 55 output columns dilated by the stride), CONV2 (27), CONV3..5 (13).
  // LeNet conv2's (Wo = 10) and every forward / backward-data kernel (<= 11) fit.
  CHECK(chunked == 6);
}

TEST_CASE("rs: register files of zero words are user errors", "[dataflow][rs]") {
  // AcceleratorSpec from a file requires RF words >= 1; a hand-built one can hold 0. Rows
  // longer than the RFs are chunked, so only an empty RF cannot map.
  const Op op = conv(1, 1, 8, 8, 1, 5);
  auto message = [&](const AcceleratorSpec& acc) {
    try {
      rs_dataflow().evaluate(op, acc);
    } catch (const UserError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  using Catch::Matchers::Contains;
  CHECK_THAT(message(array(3, 3, 12, 0, 24)),
             Contains("weight register file (0 words)") && Contains("conv fw"));
  CHECK_THAT(message(array(3, 3, 0, 224, 24)), Contains("input register file (0 words)"));
  CHECK_THAT(message(array(3, 3, 12, 224, 0)), Contains("psum register file (0 words)"));
  CHECK_THROWS_AS(rs_dataflow().engine(op, array(3, 3, 12, 0, 24), OperandValues{}), UserError);
  // What used to be rejected (S = 5 > 4 words) now maps, in chunks of 4 + 1 columns.
  const OpStats st = rs_dataflow().evaluate(op, array(3, 3, 12, 4, 24));
  CHECK(mapping_value(st, "row_chunks") == 2);
  CHECK(mapping_value(st, "chunk_cols") == 4);
  CHECK(rs_dataflow().evaluate(op, array(3, 3, 4, 224, 24)).macs ==
        static_cast<Count>(lower_to_conv(op).macs()));
  CHECK_NOTHROW(rs_dataflow().evaluate(op, array(3, 3, 1, 1, 1)));
}

TEST_CASE("rs engine speed on 16x16", "[.][benchmark]") {
  // Hidden: trainsim_tests "[benchmark]". Prints cycles per second, asserts nothing: convs
  // whose rows fit, one with row chunks (a backward-weight conv) and a GEMM (a 1x1 conv),
  // on the Eyeriss RFs (12/224/24 words) and on small_8x8's (1/2/1: S' = 1, p = q = 1,
  // so every MAC completes a psum, as `trainsim layer --accel small_8x8 --array 16x16`).
  struct Case {
    const char* rfs;
    AcceleratorSpec acc;
  };
  const Case accs[] = {{"RF 12/224/24", array(16, 16)}, {"RF 1/2/1", array(16, 16, 1, 2, 1)}};
  const Op ops[] = {conv(1, 32, 18, 18, 32, 3, 1, 1), conv(1, 16, 56, 56, 32, 3, 1, 1),
                    conv(1, 8, 64, 64, 16, 3, 1, 1),
                    conv(2, 6, 28, 28, 8, 5, 1, 2, OpRole::kBackwardWeight),
                    Op::make_gemm({256, 64, 128})};
  for (const Case& cs : accs) {
    for (const Op& op : ops) {
      const ConvShape c = lower_to_conv(op);
      OperandValues v;
      v.a.assign(c.batch * c.channels * c.height * c.width, 1.0);
      v.b.assign(c.filters * c.channels * c.kernel_h * c.kernel_w, 1.0);
      std::int64_t cycles = 0;
      double seconds = 0;
      while (seconds < 0.5) {
        auto eng = rs_dataflow().engine(op, cs.acc, v);
        const auto t0 = std::chrono::steady_clock::now();
        while (eng->step()) ++cycles;
        seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      }
      std::printf("rs engine, 16x16 %s, %s: %.2f M cycles/s\n", cs.rfs, op.describe().c_str(),
                  static_cast<double>(cycles) / seconds / 1e6);
    }
  }
  SUCCEED();
}
