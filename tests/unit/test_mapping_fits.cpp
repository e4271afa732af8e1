// What the buffer-mapping search's shortcuts rely on (mapping/search.cpp):
//   * mapping_fits, which the bisection over K tiles asks, says what analyze_mapping's `fits`
//     says, for any mapping, residency and buffer (shared or partitioned, one or two slots);
//   * for one block order, the traffic (reads, and reads and writes) does not fall as the K
//     tile shrinks, so neither do the bounds on energy and on the channel's time that stop
//     the search's sweep over smaller K tiles at the first one they rule out.
#include <catch2/catch.hpp>

#include <algorithm>
#include <vector>

#include "mapping/buffer_mapping.h"
#include "mapping/search.h"
#include "sim/core/rng.h"
#include "tests/support/random_search_case.h"

using namespace trainsim;
using trainsim::test::pick;

namespace {

Op random_op(Rng& rng) {
  if (rng.below(3) == 0)
    return Op::make_gemm({pick(rng, 1, 60), pick(rng, 1, 50), pick(rng, 1, 80)});
  ConvShape c;
  c.batch = pick(rng, 1, 4);
  c.channels = pick(rng, 1, 12);
  c.filters = pick(rng, 1, 14);
  c.kernel_h = pick(rng, 1, 3);
  c.kernel_w = pick(rng, 1, 3);
  c.stride = pick(rng, 1, 2);
  c.pad = pick(rng, 0, std::min(c.kernel_h, c.kernel_w) - 1);
  c.height = pick(rng, c.kernel_h, 14);
  c.width = pick(rng, c.kernel_w, 12);
  const OpRole roles[] = {OpRole::kForward, OpRole::kBackwardData, OpRole::kBackwardWeight};
  return Op::make_conv(c, roles[rng.below(3)]);
}

OperandResidency random_residency(Rng& rng) {
  OperandResidency r;
  const OperandResidency::Kind inputs[] = {OperandResidency::kStream, OperandResidency::kOnChip,
                                           OperandResidency::kLoadKeep};
  for (int o : {kIfmap, kFilter}) r.kind[o] = inputs[rng.below(3)];
  if (rng.below(3) == 0) r.kind[kOfmap] = OperandResidency::kKeep;
  r.write_out = rng.below(4) != 0;
  return r;
}

BufferCapacity random_capacity(Rng& rng) {
  BufferCapacity cap;
  cap.shared = rng.below(2) == 0;
  cap.total_words = pick(rng, 16, 6000);
  for (std::int64_t& w : cap.partition_words) w = pick(rng, 8, 2000);
  cap.double_buffer = rng.below(4) != 0;
  return cap;
}

std::array<int, 3> random_order(Rng& rng) {
  std::array<int, 3> order{kIfmap, kFilter, kOfmap};
  for (int k = 2; k > 0; --k) std::swap(order[k], order[rng.below(k + 1)]);
  return order;
}

// A problem, its operands' residency, a buffer and a mapping of random tiles and order.
struct Case {
  NestProblem p;
  OperandResidency res;
  BufferCapacity cap;
  BufferMapping m;
};
Case random_case(Rng& rng) {
  Case c;
  c.p = make_problem(random_op(rng), rng.below(2) == 0);
  c.res = random_residency(rng);
  c.cap = random_capacity(rng);
  for (int d = 0; d < kNumDims; ++d) c.m.tile[d] = pick(rng, 1, c.p.extent[d]);
  c.m.order = random_order(rng);
  return c;
}

}  // namespace

TEST_CASE("mapping_fits says what the closed form's fits says", "[mapping][search]") {
  Rng rng(35);
  int fit = 0, not_fit = 0;
  for (int i = 0; i < 3000; ++i) {
    const auto [p, res, cap, m0] = random_case(rng);
    BufferMapping m = m0;
    const NestSums sums = nest_sums(p, m);
    const MappingCost c = analyze_mapping(p, m, res, cap, sums);
    INFO(p.describe());
    CHECK(mapping_fits(p, m, trip_counts(p, m), res, cap, sums) == c.fits);
    ++(c.fits ? fit : not_fit);
  }
  CHECK(fit >= 300);
  CHECK(not_fit >= 300);
}

TEST_CASE("A smaller K tile moves no less, in any block order", "[mapping][search]") {
  Rng rng(36);
  for (int i = 0; i < 1000; ++i) {
    const auto [p, res, cap, m0] = random_case(rng);
    BufferMapping m = m0;
    INFO(p.describe());
    std::int64_t reads = -1, words = -1;
    for (std::int64_t k : tile_candidates(p.extent[kDimK], pick(rng, 1, 3))) {  // largest first
      m.tile[kDimK] = k;
      const MappingCost c = analyze_mapping(p, m, res, cap);
      std::int64_t r = 0;
      for (std::int64_t w : c.dram_read_words) r += w;
      CHECK(r >= reads);
      CHECK(c.dram_words() >= words);
      reads = r;
      words = c.dram_words();
    }
  }
}

TEST_CASE(
    "A block order changes fitting only through the output accumulating, and that only "
    "between the whole K dimension and any K tile that splits it",
    "[mapping][search]") {
  // The first sweep bisects once per value of output_accumulates and reuses the result for
  // every block order: tile_fits with that value must be mapping_fits, and the value must be
  // the same at every K tile of the candidates but the first (the whole dimension).
  Rng rng(37);
  int split_k = 0;
  for (int i = 0; i < 2000; ++i) {
    const auto [p, res, cap, m0] = random_case(rng);
    BufferMapping m = m0;
    INFO(p.describe());
    const std::vector<std::int64_t> ks = tile_candidates(p.extent[kDimK], pick(rng, 1, 3));
    REQUIRE(ks.front() == p.extent[kDimK]);
    bool at_split = false;
    for (std::size_t j = 0; j < ks.size(); ++j) {
      m.tile[kDimK] = ks[j];
      const auto trips = trip_counts(p, m);
      const NestSums sums = nest_sums(p, m);
      const bool acc = res.kind[kOfmap] != OperandResidency::kKeep && output_accumulates(m, trips);
      CHECK(tile_fits(p, m.tile, trips, acc, res, cap, sums) ==
            mapping_fits(p, m, trips, res, cap, sums));
      if (j == 0) continue;
      CHECK(trips[kDimK] > 1);
      if (j == 1) at_split = acc;
      CHECK(acc == at_split);
      ++split_k;
    }
  }
  CHECK(split_k >= 1000);
}

TEST_CASE(
    "A fit test from the words of a K tile of one, scaled by the K tile, says what tile_fits "
    "says",
    "[mapping][search]") {
  // The first sweep's bisection over K tiles computes each (W, O) pair's largest tiles and
  // changing operands once, with a K tile of one, and scales the filter's and the output's
  // words by each K tile it tries (mapping/search.cpp, FitTests).
  Rng rng(41);
  int tested = 0;
  for (int i = 0; i < 2000; ++i) {
    const auto [p, res, cap, m0] = random_case(rng);
    INFO(p.describe());
    BufferMapping m = m0;
    m.tile[kDimK] = 1;
    std::array<std::int64_t, kNumDims> unit_trips = trip_counts(p, m);
    unit_trips[kDimK] = 1;
    const NestSums sums = nest_sums(p, m);
    const auto unit = largest_tile_words(p, m.tile, sums);
    const unsigned without_k = operand_changes(unit_trips);
    for (std::int64_t k : tile_candidates(p.extent[kDimK], 1)) {
      m.tile[kDimK] = k;
      const auto trips = trip_counts(p, m);
      const unsigned changes = without_k | (trips[kDimK] > 1 ? (1u << kFilter | 1u << kOfmap) : 0u);
      CHECK(changes == operand_changes(trips));
      for (bool acc : {false, true}) {
        CHECK(words_fit({unit[kIfmap], unit[kFilter] * k, unit[kOfmap] * k}, changes, acc,
                        sums.total, res, cap) == tile_fits(p, m.tile, trips, acc, res, cap, sums));
        ++tested;
      }
    }
  }
  CHECK(tested >= 10000);
}
