// The buffer-mapping search's shortcuts (mapping/search.cpp: a candidate priced before the
// first sweep ends rules out the candidates whose bounds exceed its price; the second sweep
// takes the first's traffic; a K tile whose compute alone exceeds the cut-off is skipped for
// every block order; a row of (W, O) pairs, a pair or a K tile whose compute floor exceeds it
// is not swept) change how much the search does, never what it chooses: over random ops
// (GEMMs and convolutions in the three roles, with inter-op residency) on random
// accelerators, for each objective, the search with them and without them gives the same
// mapping, cost and score. So does a hint (the mapping chosen for the op on another buffer,
// or any mapping at all).
#include <catch2/catch.hpp>
#include <functional>

#include "dataflows/registry.h"
#include "mapping/search.h"
#include "sim/accel/accelerator_config.h"
#include "sim/accel/mapping_hints.h"
#include "sim/accel/tiled_memory.h"
#include "sim/core/error.h"
#include "sim/core/rng.h"
#include "tests/support/random_search_case.h"

using namespace trainsim;
using namespace trainsim::test;

namespace {

// Larger than the other search tests' ops: the cut-off needs (W, O) pairs to work on.
RandomCaseSizes sizes() {
  RandomCaseSizes z;
  z.max_side = 8;
  z.kib_base = 0.5, z.kib_step = 0.5, z.kib_steps = 32;
  z.gemm_m = 200, z.gemm_n = 160, z.gemm_k = 240;
  z.batch = 8, z.channels = 48, z.filters = 64, z.height = 32, z.width = 32;
  z.any_in_on_chip = true;
  z.resident_filter_one_in = 4;
  return z;
}

AcceleratorSpec random_accel(Rng& rng) {
  return test::random_accel(rng, sizes(), "shortcuts-test");
}
Op random_op(Rng& rng) {
  return test::random_op(rng, sizes());
}

std::optional<SearchResult> search(const Op& op, const AcceleratorSpec& a, const Dataflow& df,
                                   bool shortcuts) {
  set_search_shortcuts(shortcuts);
  try {
    SearchResult r = tiled_mapping(op, a, df);
    set_search_shortcuts(true);
    return r;
  } catch (const UserError&) {
    set_search_shortcuts(true);
    return std::nullopt;
  }
}

}  // namespace

TEST_CASE("The search's shortcuts never change the mapping it chooses",
          "[mapping][search][shortcuts]") {
  const char* const dataflows[] = {"ws", "os", "is", "rs"};
  Rng rng(35);
  int searched = 0, fewer = 0;
  int by_objective[3] = {0, 0, 0};
  for (int i = 0; i < 240; ++i) {
    const Dataflow& df = dataflow_or_throw(dataflows[rng.below(4)]);
    const Op op = random_op(rng);
    const AcceleratorSpec a = random_accel(rng);
    INFO(df.name() << " " << op.describe() << " " << a.buffer_kib() << " KiB, objective "
                   << objective_name(a.mapping.objective));
    const auto with = search(op, a, df, true), without = search(op, a, df, false);
    REQUIRE(with.has_value() == without.has_value());
    if (!with) continue;
    ++searched;
    ++by_objective[static_cast<int>(a.mapping.objective)];
    if (with->candidates < without->candidates) ++fewer;
    CHECK(with->mapping.tile == without->mapping.tile);
    CHECK(with->mapping.order == without->mapping.order);
    CHECK(with->cost.tiles == without->cost.tiles);
    CHECK(with->cost.dram_words() == without->cost.dram_words());
    CHECK(with->cost.need_words == without->cost.need_words);
    CHECK(with->score.cycles == without->score.cycles);
    CHECK(with->score.dram_words == without->score.dram_words);
    CHECK(with->score.energy == without->score.energy);
    CHECK(with->score.exact == without->score.exact);
    CHECK(with->fastest_cycles == without->fastest_cycles);
    CHECK(with->exhausted == without->exhausted);
  }
  // The comparison means something: most ops fit, every objective is tried, and the
  // shortcuts left candidates out of many searches.
  CHECK(searched >= 150);
  for (int n : by_objective) CHECK(n >= 30);
  CHECK(fewer >= searched / 4);
}

namespace {

void check_same(const SearchResult& with, const SearchResult& without) {
  CHECK(with.mapping.tile == without.mapping.tile);
  CHECK(with.mapping.order == without.mapping.order);
  CHECK(with.cost.dram_words() == without.cost.dram_words());
  CHECK(with.score.cycles == without.score.cycles);
  CHECK(with.score.energy == without.score.energy);
  CHECK(with.fastest_cycles == without.fastest_cycles);
}

// The search of `op` on `a` without shortcuts (nullopt: it fits nowhere). If it fits and
// `prime` (a search that leaves its mapping as a hint) does too, the search with that hint is
// checked against it and counted in `searched`, and in `fewer` if it kept fewer candidates
// than a search with no hint at all.
std::optional<SearchResult> check_primed(const Op& op, const AcceleratorSpec& a, const Dataflow& df,
                                         const std::function<bool()>& prime, int& searched,
                                         int& fewer) {
  MappingHints& hints = thread_mapping_hints();
  const auto without = search(op, a, df, false);
  hints.clear();
  const auto cold = search(op, a, df, true);
  REQUIRE(without.has_value() == cold.has_value());
  if (!without) return without;
  hints.clear();
  if (prime()) {
    const auto warm = search(op, a, df, true);
    REQUIRE(warm);
    check_same(*warm, *without);
    ++searched;
    if (warm->candidates < cold->candidates) ++fewer;
  }
  return without;
}

// The same accelerator with every buffer size times `f`.
AcceleratorSpec scaled_buffer(AcceleratorSpec a, double f) {
  a.buffer.kib *= f;
  a.buffer.ifmap_kib *= f, a.buffer.filter_kib *= f, a.buffer.ofmap_kib *= f;
  return a;
}

}  // namespace

TEST_CASE("A hint changes how much the search analyses, never what it chooses",
          "[mapping][search][shortcuts]") {
  const char* const dataflows[] = {"ws", "os", "is", "rs"};
  MappingHints& hints = thread_mapping_hints();
  Rng rng(36);
  int searched = 0, fewer = 0, planted = 0;
  for (int i = 0; i < 200; ++i) {
    const Dataflow& df = dataflow_or_throw(dataflows[rng.below(4)]);
    const Op op = random_op(rng);
    const AcceleratorSpec a = random_accel(rng);
    const AcceleratorSpec other = scaled_buffer(a, rng.below(2) == 0 ? 0.5 : 2.0);
    INFO(df.name() << " " << op.describe() << " " << a.buffer_kib() << " KiB (hint from "
                   << other.buffer_kib() << " KiB), objective "
                   << objective_name(a.mapping.objective));
    // The hint a sweep gives: the mapping chosen on the other buffer size (when one fits).
    const auto without = check_primed(
        op, a, df, [&] { return search(op, other, df, true).has_value(); }, searched, fewer);
    if (!without) continue;
    // Any mapping: tiles drawn from the candidates or from anywhere, any block order.
    const NestProblem p = make_problem(op, df.gemm_based());
    BufferMapping m;
    for (int d = 0; d < kNumDims; ++d) {
      const auto cands = tile_candidates(p.extent[d], 1);
      m.tile[d] =
          rng.below(2) == 0
              ? cands[rng.below(cands.size())]
              : 1 + static_cast<std::int64_t>(rng.below(static_cast<std::uint64_t>(p.extent[d])));
    }
    m.order = {kIfmap, kFilter, kOfmap};
    for (int s = 0; s < 3; ++s) std::swap(m.order[s], m.order[s + rng.below(3 - s)]);
    hints.clear();
    hints.remember(MappingHints::key_of(p, OperandResidency::of(op), a, df), "", p.extent, m);
    ++planted;
    const auto planted_result = search(op, a, df, true);
    REQUIRE(planted_result);
    check_same(*planted_result, *without);
  }
  hints.clear();
  // The hint is taken: the cut-off starting low leaves candidates out of many searches.
  CHECK(searched >= 100);
  CHECK(planted >= 100);
  CHECK(fewer >= searched / 4);
}

TEST_CASE("Mapping hints are keyed by everything of a search but the buffer, and bounded",
          "[mapping][search][shortcuts]") {
  Rng rng(37);
  const Dataflow& ws = dataflow_or_throw("ws");
  const Dataflow& rs = dataflow_or_throw("rs");
  const Op op = random_op(rng);
  const AcceleratorSpec a = random_accel(rng);
  const NestProblem p = make_problem(op, ws.gemm_based());
  const OperandResidency res = OperandResidency::of(op);
  const std::string key = MappingHints::key_of(p, res, a, ws);
  CHECK(MappingHints::key_of(p, res, scaled_buffer(a, 2.0), ws) == key);
  AcceleratorSpec wider = a;
  ++wider.cols;
  CHECK(MappingHints::key_of(p, res, wider, ws) != key);
  CHECK(MappingHints::key_of(p, res, a, rs) != key);
  OperandResidency kept = res;
  kept.write_out = !kept.write_out;
  CHECK(MappingHints::key_of(p, kept, a, ws) != key);

  // The layer's key: the same for the pass at another batch size, not for another layer,
  // pass or array; none for an op of no layer.
  CHECK(MappingHints::layer_key_of(p, res, a, ws).empty());
  Op conv = Op::make_conv(ConvShape{8, 16, 12, 12, 32, 3, 3, 1, 1}, OpRole::kBackwardData, 3);
  const NestProblem cp = make_problem(conv, ws.gemm_based());
  const std::string layer = MappingHints::layer_key_of(cp, res, a, ws);
  CHECK(!layer.empty());
  Op smaller = conv;
  smaller.conv.batch = 3;
  const NestProblem sp = make_problem(smaller, ws.gemm_based());
  CHECK(MappingHints::layer_key_of(sp, res, a, ws) == layer);
  CHECK(MappingHints::key_of(sp, res, a, ws) != MappingHints::key_of(cp, res, a, ws));
  Op other_layer = conv, other_pass = conv;
  other_layer.layer = 4;
  other_pass.role = OpRole::kForward;
  CHECK(MappingHints::layer_key_of(make_problem(other_layer, true), res, a, ws) != layer);
  CHECK(MappingHints::layer_key_of(make_problem(other_pass, true), res, a, ws) != layer);
  CHECK(MappingHints::layer_key_of(cp, res, wider, ws) != layer);

  MappingHints hints;
  BufferMapping m;
  for (std::size_t i = 0; i < 3 * kMaxMappingHints; ++i) {
    hints.remember(key + std::to_string(i), layer + std::to_string(i % 7), p.extent, m);
    REQUIRE(hints.size() <= kMaxMappingHints);
  }
  CHECK(hints.size() >= 1);
  hints.remember(key, layer, cp.extent, m);
  CHECK(hints.find(key) != nullptr);
  CHECK(hints.find(key + "?") == nullptr);
  // Carried over to the smaller batch: a dimension of another extent keeps its trip count.
  BufferMapping chosen;
  chosen.tile = {4, 16, 8, 6, 12, 3, 3};  // N: 2 trips of the 8 images
  chosen.order = {kOfmap, kFilter, kIfmap};
  hints.remember(key, layer, cp.extent, chosen);
  BufferMapping carried;
  const std::array<std::int64_t, kNumDims> ones = {1, 1, 1, 1, 1, 1, 1};
  REQUIRE(hints.find_for_layer(layer, sp.extent, ones, carried));
  CHECK(carried.order == chosen.order);
  for (int d = 0; d < kNumDims; ++d) {
    INFO("dimension " << d);
    const std::int64_t trips = (cp.extent[d] + chosen.tile[d] - 1) / chosen.tile[d];
    CHECK(carried.tile[d] ==
          (sp.extent[d] == cp.extent[d] ? chosen.tile[d] : tile_for_trips(sp.extent[d], trips, 1)));
  }
  CHECK(!hints.find_for_layer(layer + "?", sp.extent, ones, carried));
  CHECK(!hints.find_for_layer("", sp.extent, ones, carried));
}

TEST_CASE("A hint from the same layer at another batch size never changes the choice",
          "[mapping][search][shortcuts]") {
  // A run's epoch ends with a partial step and its test passes run at another batch size:
  // each op's search there starts from the mapping of the same layer's pass at the
  // training batch, carried over (MappingHints::find_for_layer).
  const char* const dataflows[] = {"ws", "os", "is", "rs"};
  MappingHints& hints = thread_mapping_hints();
  Rng rng(38);
  int searched = 0, fewer = 0;
  for (int i = 0; i < 160; ++i) {
    const Dataflow& df = dataflow_or_throw(dataflows[rng.below(4)]);
    Op op = random_op(rng);
    op.layer = static_cast<int>(rng.below(3));
    const AcceleratorSpec a = random_accel(rng);
    Op other = op;  // the same layer's pass at another batch (a GEMM: another size)
    if (op.kind == OpKind::kConv)
      other.conv.batch = 1 + static_cast<std::int64_t>(rng.below(12));
    else
      other.gemm.m = 1 + static_cast<std::int64_t>(rng.below(300));
    INFO(df.name() << " " << op.describe() << " after " << other.describe() << ", "
                   << a.buffer_kib() << " KiB, objective " << objective_name(a.mapping.objective));
    check_primed(
        op, a, df, [&] { return search(other, a, df, true).has_value(); }, searched, fewer);
  }
  hints.clear();
  CHECK(searched >= 80);
  CHECK(fewer >= searched / 5);
}
