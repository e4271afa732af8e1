// The dataflows' compute floor (Dataflow::compute_floor_factor), which the buffer-
// mapping search multiplies out to rule out whole rows and pairs of candidates before it
// analyses them (mapping/search.cpp). It must be a lower bound: over random ops (GEMMs and
// convolutions in the three roles, strided ones with their dilated kernels) on random
// arrays, and random tilings, the product of the three blocks' factors never exceeds the
// array's compute cycles summed over the tiling's tiles, and each block's least factor never
// exceeds its factor in any tiling. It must also be tight: on the systolic dataflows, for the
// whole op as one tile it falls short of the cycles by exactly folds - 1 (the F L - 1 of
// docs/systolic_dataflows.md against its F (L - 1)); on row stationary, which leaves out
// pass quantisation and each job's drain, it is a fair share of them.
#include <catch2/catch.hpp>

#include <array>
#include <vector>

#include "dataflows/registry.h"
#include "dataflows/systolic.h"
#include "dataflows/tile_values.h"
#include "mapping/search.h"
#include "sim/core/rng.h"
#include "tests/support/random_search_case.h"

using namespace trainsim;
using namespace trainsim::test;

namespace {

struct Tiling {
  std::array<std::vector<TileSpan>, kNumDims> spans;
  std::int64_t cycles = 0;  // summed over the tiles
};

Tiling tile(const NestProblem& p, const Dataflow& df, const AcceleratorSpec& a,
            const std::array<std::int64_t, kNumDims>& t) {
  Tiling r;
  BufferMapping m;
  for (int d = 0; d < kNumDims; ++d) {
    r.spans[d] = tile_spans(p, d, t[d]);
    m.tile[d] = t[d];
  }
  for (const auto& [box, count] : tile_classes(p, m))
    r.cycles += count * df.compute_cycles(tile_op(p, box), a);
  return r;
}

double factor(const NestProblem& p, const Dataflow& df, const AcceleratorSpec& a, TileBlock b,
              const Tiling& t) {
  std::array<const std::vector<TileSpan>*, 3> sp{};
  switch (b) {
    case TileBlock::kPixels:
      sp = {&t.spans[kDimN], &t.spans[kDimP], &t.spans[kDimQ]};
      break;
    case TileBlock::kReduction:
      sp = {&t.spans[kDimC], &t.spans[kDimR], &t.spans[kDimS]};
      break;
    case TileBlock::kFilters:
      sp = {&t.spans[kDimK], nullptr, nullptr};
      break;
  }
  std::vector<BlockTile> tiles;
  block_tiles(p, b, sp, tiles);
  return df.compute_floor_factor(p, a, b, &tiles);
}

constexpr TileBlock kBlocks[] = {TileBlock::kPixels, TileBlock::kReduction, TileBlock::kFilters};

}  // namespace

TEST_CASE("The systolic compute floor bounds every tiling's compute and is tight on one tile",
          "[mapping][search][floor]") {
  RandomCaseSizes z;
  z.max_side = 8;
  z.batch = 4, z.channels = 12, z.filters = 12, z.height = 12, z.width = 11;
  Rng rng(30);
  int tilings = 0, tight = 0;
  for (int i = 0; i < 300; ++i) {
    const Dataflow& df = dataflow_or_throw(i % 3 == 0 ? "ws" : i % 3 == 1 ? "os" : "is");
    const AcceleratorSpec a = random_accel(rng, z, "floor-test");
    const Op op = random_op(rng, z);
    const NestProblem p = make_problem(op, true);
    INFO(df.name() << " " << a.rows << "x" << a.cols << " " << op.describe());
    // (The systolic factors are whole numbers, exact in doubles at these sizes.)
    std::array<std::int64_t, 3> least{};
    for (TileBlock b : kBlocks)
      least[static_cast<std::size_t>(b)] =
          static_cast<std::int64_t>(df.compute_floor_factor(p, a, b, nullptr));
    for (std::int64_t f : least) REQUIRE(f > 0);

    // The whole op as one tile: F L - 1 cycles against F (L - 1).
    const Tiling whole = tile(p, df, a, p.extent);
    std::int64_t product = 1;
    for (TileBlock b : kBlocks) {
      const auto f = static_cast<std::int64_t>(factor(p, df, a, b, whole));
      CHECK(f == least[static_cast<std::size_t>(b)]);
      product *= f;
    }
    const SystolicMapping sm = map_systolic(df.name() == "ws"   ? Systolic::kWs
                                            : df.name() == "os" ? Systolic::kOs
                                                                : Systolic::kIs,
                                            tile_op(p, p.whole()), a);
    CHECK(whole.cycles - product == sm.folds() - 1);
    tight += whole.cycles - product == sm.folds() - 1;

    for (int j = 0; j < 8; ++j) {
      std::array<std::int64_t, kNumDims> t{};
      for (int d = 0; d < kNumDims; ++d) t[d] = pick(rng, 1, p.extent[d]);
      const Tiling tl = tile(p, df, a, t);
      std::int64_t bound = 1;
      for (TileBlock b : kBlocks) {
        const auto f = static_cast<std::int64_t>(factor(p, df, a, b, tl));
        CHECK(f >= least[static_cast<std::size_t>(b)]);
        bound *= f;
      }
      INFO("tiles " << t[0] << " " << t[1] << " " << t[2] << " " << t[3] << " " << t[4] << " "
                    << t[5] << " " << t[6]);
      CHECK(bound <= tl.cycles);
      ++tilings;
    }
  }
  CHECK(tilings == 2400);
  CHECK(tight == 300);
}

TEST_CASE("The row-stationary compute floor bounds every tiling's compute",
          "[mapping][search][floor]") {
  const Dataflow& rs = dataflow_or_throw("rs");
  RandomCaseSizes z;
  z.max_side = 8;
  z.batch = 4, z.channels = 12, z.filters = 12, z.height = 12, z.width = 11;
  Rng rng(31);
  int tilings = 0, whole_ops = 0;
  std::vector<double> share;  // each whole op's floor against its cycles
  for (int i = 0; i < 200; ++i) {
    const AcceleratorSpec a = random_accel(rng, z, "floor-test");
    const Op op = random_op(rng, z);
    const NestProblem p = make_problem(op, false);
    INFO(a.rows << "x" << a.cols << " " << op.describe());
    std::array<double, 3> least{};
    for (TileBlock b : kBlocks)
      least[static_cast<std::size_t>(b)] = rs.compute_floor_factor(p, a, b, nullptr);
    for (double f : least) REQUIRE(f > 0);
    const Tiling whole = tile(p, rs, a, p.extent);
    double product = 1;
    for (TileBlock b : kBlocks) product *= factor(p, rs, a, b, whole);
    CHECK(product <= static_cast<double>(whole.cycles));
    share.push_back(product / static_cast<double>(whole.cycles));
    ++whole_ops;
    for (int j = 0; j < 8; ++j) {
      std::array<std::int64_t, kNumDims> t{};
      for (int d = 0; d < kNumDims; ++d) t[d] = pick(rng, 1, p.extent[d]);
      const Tiling tl = tile(p, rs, a, t);
      double bound = 1;
      for (TileBlock b : kBlocks) {
        const double f = factor(p, rs, a, b, tl);
        CHECK(f >= least[static_cast<std::size_t>(b)] * (1 - 1e-12));
        bound *= f;
      }
      INFO("tiles " << t[0] << " " << t[1] << " " << t[2] << " " << t[3] << " " << t[4] << " "
                    << t[5] << " " << t[6]);
      CHECK(bound <= static_cast<double>(tl.cycles));
      ++tilings;
    }
  }
  CHECK(tilings == 1600);
  // Not vacuous: on most whole ops the floor is a fair share of the cycles.
  std::sort(share.begin(), share.end());
  // (On these cases: 0.30, 0.84 and 0.98 of them at the 10th, 50th and 90th percentiles.)
  CHECK(share[share.size() / 2] > 0.5);
}

TEST_CASE("A dataflow's tile cycles equal its cycles for the tile's op", "[mapping][search]") {
  // The search asks Dataflow::tile_compute_cycles for every distinct tile of every candidate;
  // row stationary (from the tile's convolution) and the systolic arrays (from its GEMM)
  // answer it without building the tile's op, and must answer what the op would cost
  // (strided ops, dilated kernels and tiles over padding included).
  RandomCaseSizes z;
  z.max_side = 8;
  z.batch = 4, z.channels = 12, z.filters = 12, z.height = 12, z.width = 11;
  Rng rng(32);
  int tiles = 0;
  for (int i = 0; i < 200; ++i) {
    const Dataflow& df = dataflow_or_throw(i % 4 == 0   ? "ws"
                                           : i % 4 == 1 ? "os"
                                           : i % 4 == 2 ? "is"
                                                        : "rs");
    const AcceleratorSpec a = random_accel(rng, z, "tile-cycles-test");
    const Op op = random_op(rng, z);
    const NestProblem p = make_problem(op, df.gemm_based());
    INFO(df.name() << " " << a.rows << "x" << a.cols << " " << op.describe());
    for (int j = 0; j < 6; ++j) {
      BufferMapping m;
      for (int d = 0; d < kNumDims; ++d)
        m.tile[d] = j == 0 ? p.extent[d] : pick(rng, 1, p.extent[d]);
      for (const auto& [box, count] : tile_classes(p, m)) {
        CHECK(df.tile_compute_cycles(p, box, a) == df.compute_cycles(tile_op(p, box), a));
        ++tiles;
      }
    }
  }
  CHECK(tiles > 2000);
}
