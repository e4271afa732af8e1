// Monotone costs (mapping/search.h): more work never makes the buffer-mapping search's
// optimum better. For every dataflow, random ops (GEMMs and convolutions in all three roles,
// with and without inter-op residency) on random small accelerators, each objective, and
// three kinds of more work:
//   * a larger dimension (one of the op's dimensions grows by one or doubles);
//   * an extra operand from DRAM (the filter leaves its dedicated memory: ADA-GP-LOW against
//     Efficient);
//   * a smaller buffer (three quarters of it);
// half of the cases with an output accumulator and rs keeping partial sums in the PEs;
// the optimum of the objective (time: the fastest candidate's cycles; energy; energy x
// cycles) is at least what it was, and the time objective's choice is within its tolerance
// of that fastest time.
#include <catch2/catch.hpp>

#include "dataflows/registry.h"
#include "mapping/search.h"
#include "sim/accel/tiled_memory.h"
#include "sim/core/error.h"
#include "sim/core/rng.h"
#include "tests/support/random_search_case.h"

using namespace trainsim;
using namespace trainsim::test;

namespace {

// Small cases: the search is exhaustive at these sizes.
const RandomCaseSizes kSizes;

AcceleratorSpec random_accel(Rng& rng) {
  return test::random_accel(rng, kSizes, "monotone-test");
}
Op random_op(Rng& rng) {
  return test::random_op(rng, kSizes);
}

// The op with more work of the kind `kind`; false if the op has no such extra work.
bool more_work(Op& op, AcceleratorSpec& a, int kind, Rng& rng) {
  switch (kind) {
    case 0: {  // a larger dimension
      const bool twice = rng.below(2) == 0;
      auto grow = [&](std::int64_t& v) { v = twice ? 2 * v : v + 1; };
      if (op.kind == OpKind::kGemm) {
        std::int64_t* dims[] = {&op.gemm.m, &op.gemm.n, &op.gemm.k};
        grow(*dims[rng.below(3)]);
      } else {
        ConvShape& c = op.conv;
        std::int64_t* dims[] = {&c.batch, &c.channels, &c.filters, &c.height, &c.width};
        grow(*dims[rng.below(5)]);
      }
      return true;
    }
    case 1:  // an extra operand from DRAM: the filter leaves its dedicated memory
      // (An input the session keeps on chip is not less work than reading it: the op must
      // then hold the whole tensor in the buffer, which can leave its tiles less room.)
      if (!op.resident_filter) return false;
      op.resident_filter = false;
      return true;
    default:  // a smaller buffer
      a.buffer.kib *= 0.75;
      a.buffer.ifmap_kib = a.buffer.filter_kib = a.buffer.ofmap_kib = a.buffer.kib / 3;
      return true;
  }
}

// The objective's optimum over the candidates, or a negative value if nothing fits.
double optimum(const Op& op, const AcceleratorSpec& a, const Dataflow& df, SearchResult* out) {
  try {
    const SearchResult r = tiled_mapping(op, a, df);
    if (out) *out = r;
    switch (a.mapping.objective) {
      case MappingObjective::kTime:
        return static_cast<double>(r.fastest_cycles);
      case MappingObjective::kEnergy:
        return r.score.energy;
      default:
        return r.score.energy * static_cast<double>(r.score.cycles);
    }
  } catch (const UserError&) {
    return -1;
  }
}

}  // namespace

TEST_CASE("More work never makes the mapping's optimum better", "[memory][tiled][monotone]") {
  for (const char* name : {"ws", "os", "is", "rs"}) {
    const Dataflow& df = dataflow_or_throw(name);
    Rng rng(41);
    int cases = 0, compared = 0;
    std::array<int, 3> kinds{};
    while (cases < 1000) {
      const Op op = random_op(rng);
      AcceleratorSpec a = random_accel(rng);
      if (cases % 2 == 1) {
        // Half with the partial-sum options: rs keeping sums in the PEs, and an output
        // accumulator of 64 to 767 words (without drawing from rng: the same ops as without).
        a.rf.keep_psums = true;
        a.accumulator.words = 64 + 37 * (cases % 20);
      }
      const int kind = static_cast<int>(rng.below(3));
      Op more_op = op;
      AcceleratorSpec more_acc = a;
      if (!more_work(more_op, more_acc, kind, rng)) continue;
      ++cases;
      SearchResult less_r, more_r;
      const double less = optimum(op, a, df, &less_r);
      const double more = optimum(more_op, more_acc, df, &more_r);
      if (less < 0 || more < 0) {
        if (kind == 2) CHECK((less >= 0 || more < 0));  // a smaller buffer never fits more
        continue;
      }
      ++compared;
      ++kinds[static_cast<std::size_t>(kind)];
      INFO(name << " case " << cases << ": " << op.describe() << " -> " << more_op.describe()
                << ", " << a.buffer.kib << " -> " << more_acc.buffer.kib << " KiB, objective "
                << objective_name(a.mapping.objective) << ", kind " << kind << ", accumulator "
                << a.accumulator.words);
      CHECK(more >= less);
      CHECK(less_r.exhausted);
      if (a.mapping.objective == MappingObjective::kTime) {
        CHECK(static_cast<double>(more_r.score.cycles) <=
              static_cast<double>(more_r.fastest_cycles) * (1 + kTimeTolerance) + 1);
        CHECK(more_r.score.cycles >= less_r.fastest_cycles);
      }
    }
    INFO(name);
    CHECK(compared >= 600);
    for (int k : kinds) CHECK(k >= 100);
  }
}
