// The tiled memory model's invariants, over random GEMMs and convolutions in all three
// training roles and all four dataflows:
//   * DRAM traffic is at least the compulsory traffic (each operand read once, the output
//     written once), and equal to it when the whole op fits the buffer and the mapping
//     minimises energy;
//   * no objective's optimum (mapping.objective) gets worse when the buffer grows;
//   * the tile walk moves exactly what the closed form counts, and its tiles cover every MAC
//     once;
//   * the cycle fidelity (the clocked array, tile by tile, through SystemC) equals the fast
//     one on every counter, and the tiles' results add up to the op's reference result;
//   * an output accumulator takes partial sums off the buffer and changes neither DRAM
//     traffic nor time;
//   * a buffer too small for any tile is an error naming the op and the level.
#include <catch2/catch.hpp>

#include "dataflows/registry.h"
#include "mapping/search.h"
#include "mapping/tile_walk.h"
#include "models/accel_node.h"
#include "sim/accel/cost_model.h"
#include "sim/accel/reference.h"
#include "sim/accel/tiled_memory.h"
#include "sim/core/error.h"
#include "sim/core/rng.h"
#include "tests/support/stats_diff.h"

using namespace trainsim;
using trainsim::test::first_difference;

namespace {

const char* const kDataflows[] = {"ws", "os", "is", "rs"};
constexpr MappingObjective kEnergy = MappingObjective::kEnergy;

AcceleratorSpec accel(double kib, bool shared,
                      MappingObjective objective = MappingObjective::kTime) {
  AcceleratorSpec a;
  a.mapping.objective = objective;
  a.name = "tiled-test";
  a.rows = 4;
  a.cols = 5;
  a.word_bits = 16;
  a.rf = {6, 48, 8};
  a.buffer.shared = shared;
  a.buffer.kib = kib;
  a.buffer.ifmap_kib = a.buffer.filter_kib = a.buffer.ofmap_kib = kib / 3;
  a.dram.bandwidth_gbps = 4;  // 4 bytes per cycle: transfers matter
  a.dram.latency_cycles = 7;
  a.energy.mac = {{16, 1.0}};
  return a;
}

std::int64_t pick(Rng& rng, std::int64_t lo, std::int64_t hi) {
  return lo + static_cast<std::int64_t>(rng.below(static_cast<std::uint64_t>(hi - lo + 1)));
}

// A small GEMM, or a convolution in one of the three roles (strides, padding, rectangles).
Op random_op(Rng& rng) {
  Op op;
  if (rng.below(4) == 0) {
    op = Op::make_gemm({pick(rng, 1, 40), pick(rng, 1, 30), pick(rng, 1, 40)});
  } else {
    ConvShape c;
    c.batch = pick(rng, 1, 3);
    c.channels = pick(rng, 1, 6);
    c.filters = pick(rng, 1, 7);
    c.kernel_h = pick(rng, 1, 3);
    c.kernel_w = pick(rng, 1, 3);
    c.stride = pick(rng, 1, 2);
    c.pad = pick(rng, 0, std::min(c.kernel_h, c.kernel_w) - 1);
    c.height = pick(rng, c.kernel_h, 11);
    c.width = pick(rng, c.kernel_w, 9);
    const OpRole roles[] = {OpRole::kForward, OpRole::kBackwardData, OpRole::kBackwardWeight};
    op = Op::make_conv(c, roles[rng.below(3)]);
  }
  op.word_bits = 16;
  return op;
}

// Any mapping of `p`, not only a searched one: random tiles and block order.
BufferMapping random_mapping(Rng& rng, const NestProblem& p) {
  BufferMapping m;
  for (int d = 0; d < kNumDims; ++d) m.tile[d] = pick(rng, 1, p.extent[d]);
  std::array<int, 3> order{kIfmap, kFilter, kOfmap};
  for (int k = 2; k > 0; --k) std::swap(order[k], order[rng.below(k + 1)]);
  m.order = order;
  return m;
}

// A GEMM of 16-bit words, as the accelerators here hold.
Op gemm16(const GemmShape& g) {
  Op op = Op::make_gemm(g);
  op.word_bits = 16;
  return op;
}

std::int64_t minimum_bytes(const Op& op, const Dataflow& df) {
  const auto total = make_problem(op, df.gemm_based()).total_words();
  return 2 * (total[0] + total[1] + total[2]);
}

// evaluate_op, or -1 if the op cannot be placed in the buffer.
std::int64_t dram_or_none(const Op& op, const AcceleratorSpec& a, const Dataflow& df) {
  try {
    return static_cast<std::int64_t>(evaluate_op(op, a, df).dram_bytes());
  } catch (const UserError&) {
    return -1;
  }
}

}  // namespace

TEST_CASE("DRAM traffic is at least each operand once, and exactly that when the op fits",
          "[memory][tiled]") {
  Rng rng(11);
  for (const char* name : kDataflows) {
    const Dataflow& df = dataflow_or_throw(name);
    for (int i = 0; i < 60; ++i) {
      const Op op = random_op(rng);
      INFO(name << " " << op.describe());
      const std::int64_t minimum = minimum_bytes(op, df);
      for (bool shared : {true, false}) {
        const std::int64_t small = dram_or_none(op, accel(0.75, shared, kEnergy), df);
        if (small >= 0) CHECK(small >= minimum);
        const OpStats big = evaluate_op(op, accel(4096, shared, kEnergy), df);
        CHECK(static_cast<std::int64_t>(big.dram_bytes()) == minimum);
        CHECK(big.stall_cycles >= 0);
      }
    }
  }
}

TEST_CASE("No objective's optimum gets worse when the buffer grows", "[memory][tiled]") {
  // The search minimises time, energy or energy x time (mapping.objective): a larger buffer
  // fits more candidates, and never a worse optimum. (When the search minimised traffic
  // first, this test checked that traffic never grew; a faster or cheaper mapping may move
  // more traffic, so each objective is checked by its own measure, and traffic only at the
  // end: in a buffer that holds the whole op, the energy objective moves the minimum.)
  Rng rng(12);
  for (const char* name : kDataflows) {
    const Dataflow& df = dataflow_or_throw(name);
    for (int i = 0; i < 25; ++i) {
      const Op op = random_op(rng);
      for (bool shared : {true, false}) {
        for (MappingObjective objective :
             {MappingObjective::kTime, MappingObjective::kEnergy, MappingObjective::kEdp}) {
          INFO(name << " " << op.describe() << (shared ? " shared" : " partitioned")
                    << " objective " << objective_name(objective));
          double previous = -1;
          for (double kib = 0.125; kib <= 64; kib *= 1.5) {
            const AcceleratorSpec a = accel(kib, shared, objective);
            if (dram_or_none(op, a, df) < 0) {
              CHECK(previous < 0);  // once it fits, a larger buffer fits too
              continue;
            }
            const SearchResult r = tiled_mapping(op, a, df);
            const double value = objective == MappingObjective::kTime
                                     ? static_cast<double>(r.fastest_cycles)
                                 : objective == MappingObjective::kEnergy
                                     ? r.score.energy
                                     : r.score.energy * static_cast<double>(r.score.cycles);
            if (previous >= 0) CHECK(value <= previous);
            previous = value;
          }
          if (objective == MappingObjective::kEnergy)
            CHECK(dram_or_none(op, accel(64, shared, objective), df) == minimum_bytes(op, df));
        }
      }
    }
  }
}

TEST_CASE("The tile walk moves what the closed form counts and covers every MAC once",
          "[memory][tiled]") {
  Rng rng(13);
  const BufferCapacity cap = BufferCapacity::of(accel(1 << 20, true));
  for (int i = 0; i < 300; ++i) {
    const Op op = random_op(rng);
    const NestProblem p = make_problem(op, rng.below(2) == 0);
    // Any mapping, not only the searched one: random tiles, order and residency.
    const BufferMapping m = random_mapping(rng, p);
    OperandResidency res;
    const OperandResidency::Kind in_kinds[] = {OperandResidency::kStream, OperandResidency::kOnChip,
                                               OperandResidency::kLoadKeep};
    res.kind[kIfmap] = in_kinds[rng.below(3)];
    res.kind[kFilter] = in_kinds[rng.below(3)];
    res.kind[kOfmap] = rng.below(3) == 0 ? OperandResidency::kKeep : OperandResidency::kStream;
    res.write_out = res.kind[kOfmap] != OperandResidency::kKeep || rng.below(2) == 0;
    const MappingCost c = analyze_mapping(p, m, res, cap);
    INFO(p.describe() << " order " << m.order[0] << m.order[1] << m.order[2] << " kinds "
                      << int(res.kind[0]) << int(res.kind[1]) << int(res.kind[2]));

    TileWalk walk(p, m, res);
    TileStep step;
    std::array<std::int64_t, kNumOperands> fetched{};
    std::int64_t written = 0, steps = 0, volume = 0;
    while (walk.next(step)) {
      for (int o = 0; o < kNumOperands; ++o) fetched[o] += step.fetch_words[o];
      written += step.write_words;
      std::int64_t v = 1;
      for (std::int64_t e : step.box.extent) v *= e;
      volume += v;
      ++steps;
    }
    CHECK(steps == c.tiles);
    for (int o = 0; o < kNumOperands; ++o) CHECK(fetched[o] == c.dram_read_words[o]);
    CHECK(written == c.dram_write_words[kOfmap]);
    std::int64_t whole = 1;
    for (std::int64_t e : p.extent) whole *= e;
    CHECK(volume == whole);
  }
}

TEST_CASE("Cycle fidelity runs the tiles through SystemC: every counter as fast, exact result",
          "[memory][tiled][fidelity]") {
  Rng rng(14);
  int tiled = 0;
  for (const char* name : kDataflows) {
    const Dataflow& df = dataflow_or_throw(name);
    for (int i = 0; i < 12; ++i) {
      const Op op = random_op(rng);
      AcceleratorSpec a = accel(rng.below(2) == 0 ? 0.5 : 1.5, rng.below(2) == 0);
      if (i % 2 == 1) a.accumulator.words = pick(rng, 8, 160);
      a.rf.keep_psums = i % 3 == 0;  // rs: partial sums kept in the PEs where they fit
      INFO(name << " " << op.describe() << " " << a.buffer_kib() << " KiB, accumulator "
                << a.accumulator.words << (a.rf.keep_psums ? ", keep_psums" : ""));
      if (dram_or_none(op, a, df) < 0) continue;
      const OperandValues v = make_operands(op, df.gemm_based(), 5);
      std::array<OpStats, 2> stats;
      for (Fidelity f : {Fidelity::kFast, Fidelity::kCycle}) {
        AcceleratorNode sys(a, df, f);
        std::vector<OpRequest> batch(1);
        batch[0].op = op;
        batch[0].values = &v;
        sys.run(batch);
        stats[f == Fidelity::kCycle] = batch[0].stats;
        CHECK(sys.cycles() == batch[0].stats.cycles());
        if (f == Fidelity::kCycle)
          CHECK(batch[0].result == reference_result(op, df.gemm_based(), v));
      }
      CHECK(first_difference(stats[0], stats[1]) == "");
      if (tiled_mapping(op, a, df).cost.tiles > 1) ++tiled;
    }
  }
  CHECK(tiled >= 20);  // the buffers are small enough that most ops run in several tiles
}

TEST_CASE("An output accumulator takes the partial sums it holds, off the buffer",
          "[memory][tiled][accumulator]") {
  // GEMM M = 6, N = 5, K = 8 (as a 1x1 convolution of one 6 x 1 image: P = 6 rows, K = 5
  // filters, C = 8 channels) on the 4 x 5 ws array, in two reduction tiles of C = 4, the
  // reduction block innermost. Each tile is one fold (K = 4 rows, N = 5 columns) streaming
  // M = 6: 30 outputs.
  const Op op = gemm16({6, 5, 8});
  const Dataflow& ws = dataflow_or_throw("ws");
  BufferMapping m;
  m.tile = {1, 5, 4, 6, 1, 1, 1};
  m.order = {kIfmap, kFilter, kOfmap};
  AcceleratorSpec a = accel(64, true);
  // Without: each tile writes its 30 sums (60), the second reads the first's back (30) and
  // the drain to DRAM reads the 30 outputs.
  MappingCheck none = check_mapping(op, a, ws, m);
  CHECK(none.walked.buffer.writes[kOfmap] == 60);
  CHECK(none.walked.buffer.reads[kOfmap] == 60);
  CHECK(none.walked.acc == AccessCounts{});
  // One word short of a fold: the same.
  a.accumulator.words = 29;
  CHECK(first_difference(check_mapping(op, a, ws, m).walked, none.walked) == "");
  // Room for the fold, hence for the output tile: both tiles' sums go to the accumulator
  // (30 + 30 writes, read once each: by the second tile's first sums and by the drain), and
  // the buffer takes the 30 finished outputs once and reads them once for DRAM.
  a.accumulator.words = 30;
  const MappingCheck held = check_mapping(op, a, ws, m);
  CHECK(held.walked.acc.writes[kOfmap] == 60);
  CHECK(held.walked.acc.reads[kOfmap] == 60);
  CHECK(held.walked.buffer.writes[kOfmap] == 30);
  CHECK(held.walked.buffer.reads[kOfmap] == 30);
  CHECK(held.walked_cycles == none.walked_cycles);
  // The filters' block innermost (two tiles of 3 rows, each over both reduction tiles, in
  // turn): the output tiles are not revisited at once, so each tile's 15 sums pass through
  // the accumulator (one fold, no row folds to add) and go back to the buffer as without.
  m.tile = {1, 5, 4, 3, 1, 1, 1};
  m.order = {kIfmap, kOfmap, kFilter};
  const MappingCheck apart = check_mapping(op, a, ws, m);
  a.accumulator.words = 0;
  const MappingCheck apart_none = check_mapping(op, a, ws, m);
  CHECK(apart.walked.acc.writes[kOfmap] == 60);
  CHECK(apart.walked.acc.reads[kOfmap] == 60);
  CHECK(apart.walked.buffer.writes[kOfmap] == apart_none.walked.buffer.writes[kOfmap]);
  CHECK(apart.walked.buffer.reads[kOfmap] == apart_none.walked.buffer.reads[kOfmap]);
  CHECK(apart_none.walked.buffer.reads[kOfmap] > 30);  // read back between: spilled
}

TEST_CASE("An output accumulator never adds buffer traffic, and never changes DRAM or time",
          "[memory][tiled][accumulator]") {
  // Any mapping, with and without an accumulator of random size: the array's time, the DRAM
  // traffic and the buffer's operand reads are the same; the buffer's ofmap accesses can only
  // fall, and fall further (or stay) with a larger one; every word the accumulator takes is
  // read once; the walk and the tile-by-tile run agree.
  Rng rng(17);
  int held = 0;
  for (int i = 0; i < 400; ++i) {
    const char* name = kDataflows[i % 4];
    const Dataflow& df = dataflow_or_throw(name);
    const Op op = random_op(rng);
    const NestProblem p = make_problem(op, df.gemm_based());
    const BufferMapping m = random_mapping(rng, p);
    AcceleratorSpec a = accel(1 << 20, true);
    const MappingCheck without = check_mapping(op, a, df, m);
    a.accumulator.words = pick(rng, 1, 300);
    INFO(name << " " << op.describe() << " accumulator " << a.accumulator.words << " tile "
              << m.tile[0] << "," << m.tile[1] << "," << m.tile[2] << "," << m.tile[3] << ","
              << m.tile[4] << "," << m.tile[5] << "," << m.tile[6] << " order " << m.order[0]
              << m.order[1] << m.order[2]);
    const MappingCheck with = check_mapping(op, a, df, m);
    CHECK(with.walked_cycles == without.walked_cycles);
    CHECK(with.stepped_cycles == without.stepped_cycles);
    CHECK(with.walked.dram_bytes() == without.walked.dram_bytes());
    for (int o : {kIfmap, kFilter}) {
      CHECK(with.walked.buffer.reads[o] == without.walked.buffer.reads[o]);
      CHECK(with.walked.buffer.writes[o] == without.walked.buffer.writes[o]);
    }
    CHECK(with.walked.buffer.reads[kOfmap] <= without.walked.buffer.reads[kOfmap]);
    CHECK(with.walked.buffer.writes[kOfmap] <= without.walked.buffer.writes[kOfmap]);
    CHECK(with.walked.acc.reads[kOfmap] == with.walked.acc.writes[kOfmap]);
    CHECK(first_difference(with.walked, with.stepped) == "");
    // A larger accumulator holds whatever the smaller one held: never more buffer traffic.
    a.accumulator.words *= 3;
    const MappingCheck larger = check_mapping(op, a, df, m);
    CHECK(larger.walked.buffer.total_reads() <= with.walked.buffer.total_reads());
    CHECK(larger.walked.buffer.total_writes() <= with.walked.buffer.total_writes());
    held += with.walked.buffer.writes[kOfmap] < without.walked.buffer.writes[kOfmap];
  }
  CHECK(held >= 60);  // the sizes reach both sides of the folds' and tiles' outputs
}

TEST_CASE("A buffer too small for any tile is an error naming the op and the level",
          "[memory][tiled][errors]") {
  ConvShape c;
  c.batch = 2, c.channels = 8, c.height = c.width = 12, c.filters = 16;
  c.kernel_h = c.kernel_w = 3;
  const Op op = Op::make_conv(c, OpRole::kForward);
  auto message = [&](const AcceleratorSpec& a) {
    try {
      evaluate_op(op, a, dataflow_or_throw("ws"));
    } catch (const UserError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  const std::string shared = message(accel(0.01, true));
  CHECK(shared.find(op.describe()) != std::string::npos);
  CHECK(shared.find("global buffer") != std::string::npos);
  AcceleratorSpec parts = accel(64, false);
  parts.buffer.filter_kib = 0.01;  // 5 words: not even one column of filters
  const std::string partition = message(parts);
  CHECK(partition.find(op.describe()) != std::string::npos);
  CHECK(partition.find("buffer partition filter") != std::string::npos);
}

TEST_CASE("Pinned tiles and a pinned stationary operand are obeyed", "[memory][tiled]") {
  AcceleratorSpec a = accel(8, true);
  ConvShape c;
  c.batch = 4, c.channels = 8, c.height = c.width = 10, c.filters = 10;
  c.kernel_h = c.kernel_w = 3, c.pad = 1;
  const Op op = Op::make_conv(c, OpRole::kForward);
  a.mapping.tile[kDimN] = 1;
  a.mapping.tile[kDimC] = 4;
  a.mapping.stationary = kFilter;
  const SearchResult r = tiled_mapping(op, a, dataflow_or_throw("rs"));
  CHECK(r.mapping.tile[kDimN] == 1);
  CHECK(r.mapping.tile[kDimC] == 4);
  CHECK(r.mapping.order[2] == kFilter);
}

TEST_CASE("An op of more than 2^20 tiles: exact counts, a time bound, and no cycle fidelity",
          "[memory][tiled][errors]") {
  // A buffer of a few dozen words forces tiny tiles on a 512^3 GEMM: millions of tiles, too
  // many to walk one by one. The fast fidelity counts them by class instead.
  const Op op = gemm16({512, 512, 512});
  for (const char* name : kDataflows) {
    const Dataflow& df = dataflow_or_throw(name);
    // RS's smallest tile (a row of filters by a row of the map) needs more words.
    const AcceleratorSpec a = accel(std::string(name) == "rs" ? 0.25 : 0.1, true);
    INFO(name);
    REQUIRE(tiled_mapping(op, a, df).cost.tiles > (std::int64_t{1} << 20));
    AcceleratorNode sys(a, df, Fidelity::kFast);
    std::vector<OpRequest> batch(1);
    batch[0].op = op;
    sys.run(batch);
    const OpStats& s = batch[0].stats;
    CHECK(s.macs == Count{512} * 512 * 512);
    CHECK(static_cast<std::int64_t>(s.dram_bytes()) > minimum_bytes(op, df));
    // The same counts as a fresh evaluation (memoized or not, classes or not).
    CHECK(first_difference(s, evaluate_op(op, a, df)) == "");
    // The bound: never faster than the array's work or than the DRAM channel.
    const double bytes_per_cycle = a.dram.bandwidth_gbps / a.clock_ghz;
    CHECK(s.cycles() >= s.compute_cycles);
    CHECK(static_cast<double>(s.cycles()) >= static_cast<double>(s.dram_bytes()) / bytes_per_cycle);
    AcceleratorNode clocked(a, df, Fidelity::kCycle);
    const OperandValues v = make_operands(op, df.gemm_based(), 5);
    batch[0] = OpRequest{};
    batch[0].op = op;
    batch[0].values = &v;
    try {
      clocked.run(batch);
      FAIL("the cycle fidelity clocked an op of more than 2^20 tiles");
    } catch (const UserError& e) {
      CHECK(std::string(e.what()).find("too many to clock") != std::string::npos);
    }
  }
}
