// The buffer-mapping search's shortcuts (mapping/search.cpp: a candidate priced before the
// first sweep ends rules out the candidates whose bounds exceed its price; the second sweep
// takes the first's traffic; a K tile whose compute alone exceeds the cut-off is skipped for
// every block order) change how much the search does, never what it chooses: over random ops
// (GEMMs and convolutions in the three roles, with inter-op residency) on random
// accelerators, for each objective, the search with them and without them gives the same
// mapping, cost and score.
#include <catch2/catch.hpp>

#include "dataflows/registry.h"
#include "mapping/search.h"
#include "sim/accel/accelerator_config.h"
#include "sim/accel/tiled_memory.h"
#include "sim/core/error.h"
#include "sim/core/rng.h"

using namespace trainsim;

namespace {

std::int64_t pick(Rng& rng, std::int64_t lo, std::int64_t hi) {
  return lo + static_cast<std::int64_t>(rng.below(static_cast<std::uint64_t>(hi - lo + 1)));
}

AcceleratorSpec random_accel(Rng& rng) {
  AcceleratorSpec a;
  a.name = "shortcuts-test";
  a.rows = static_cast<int>(pick(rng, 2, 8));
  a.cols = static_cast<int>(pick(rng, 2, 8));
  a.word_bits = 16;
  a.rf = {pick(rng, 3, 12), pick(rng, 16, 96), pick(rng, 4, 16)};
  a.buffer.shared = rng.below(2) == 0;
  a.buffer.kib = 0.5 + 0.5 * static_cast<double>(rng.below(32));
  a.buffer.ifmap_kib = a.buffer.filter_kib = a.buffer.ofmap_kib = a.buffer.kib / 3;
  a.buffer.double_buffer = rng.below(5) != 0;
  a.dram.bandwidth_gbps = static_cast<double>(pick(rng, 1, 16));
  a.dram.latency_cycles = pick(rng, 0, 40);
  a.energy.mac = {{16, 1.0}};
  a.mapping.objective = static_cast<MappingObjective>(rng.below(3));
  return a;
}

// Larger than the other search tests' ops: the cut-off needs (W, O) pairs to work on.
Op random_op(Rng& rng) {
  Op op;
  if (rng.below(3) == 0) {
    op = Op::make_gemm({pick(rng, 1, 200), pick(rng, 1, 160), pick(rng, 1, 240)});
  } else {
    ConvShape c;
    c.batch = pick(rng, 1, 8);
    c.channels = pick(rng, 1, 48);
    c.filters = pick(rng, 1, 64);
    c.kernel_h = pick(rng, 1, 3);
    c.kernel_w = pick(rng, 1, 3);
    c.stride = pick(rng, 1, 2);
    c.pad = pick(rng, 0, std::min(c.kernel_h, c.kernel_w) - 1);
    c.height = pick(rng, c.kernel_h, 32);
    c.width = pick(rng, c.kernel_w, 32);
    const OpRole roles[] = {OpRole::kForward, OpRole::kBackwardData, OpRole::kBackwardWeight};
    op = Op::make_conv(c, roles[rng.below(3)]);
  }
  op.word_bits = 16;
  if (rng.below(3) == 0) op.residency.in_on_chip = static_cast<std::uint8_t>(rng.below(4));
  if (rng.below(4) == 0) op.residency.out_keep = 1;
  if (rng.below(4) == 0) op.resident_filter = true;
  return op;
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
