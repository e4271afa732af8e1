// The cycle engines of ws / os / is against their closed forms: on hundreds of random
// shapes and arrays (ragged folds, 1-wide arrays, K = 1, lowered convolutions) the engine must
// take exactly compute_cycles steps, reproduce every OpStats counter and compute A x B
// exactly.
#include <catch2/catch.hpp>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "dataflows/registry.h"
#include "sim/accel/reference.h"
#include "sim/core/rng.h"
#include "tests/support/stats_diff.h"

using namespace trainsim;
using trainsim::test::first_difference;

namespace {

std::int64_t mapping_value(const OpStats& st, const std::string& key) {
  for (const auto& [k, v] : st.mapping)
    if (k == key) return v;
  return -1;
}

AcceleratorSpec array(int rows, int cols) {
  AcceleratorSpec a;
  a.name = "test";
  a.rows = rows;
  a.cols = cols;
  return a;
}

struct Case {
  Op op;
  AcceleratorSpec acc;
};

// Arrays cover 1x1, single rows / columns and shapes that divide nothing evenly, and the
// widths the engines run as fixed-width vectors (8, 16, 32 columns: vector_rows.h); with and
// without an output accumulator.
std::vector<Case> random_cases(std::uint64_t seed, int count) {
  const std::pair<int, int> arrays[] = {{1, 1}, {1, 6}, {5, 1}, {3, 5},   {4, 4}, {2, 7},
                                        {8, 3}, {6, 6}, {7, 2}, {16, 16}, {4, 8}, {3, 32}};
  Rng rng(seed);
  auto pick = [&](std::int64_t lo, std::int64_t hi) {
    return lo + static_cast<std::int64_t>(rng.below(static_cast<std::uint64_t>(hi - lo + 1)));
  };
  std::vector<Case> cases;
  for (int n = 0; n < count; ++n) {
    const auto [r, c] = arrays[n % std::size(arrays)];
    Case k{Op{}, array(r, c)};
    // A third with an output accumulator, from a few words (folds spill to the buffer) to
    // more than any fold's outputs.
    if (n % 3 == 1) k.acc.accumulator.words = pick(1, 400);
    if (n % 6 == 5) {
      // Small convolutions in all three training roles, so lower_to_gemm is exercised.
      ConvShape cs;
      cs.batch = pick(1, 2), cs.channels = pick(1, 3), cs.height = pick(3, 6);
      cs.width = pick(3, 6), cs.filters = pick(1, 4), cs.kernel_h = pick(1, 3);
      cs.kernel_w = pick(1, 3), cs.stride = pick(1, 2), cs.pad = pick(0, 1);
      const OpRole roles[] = {OpRole::kForward, OpRole::kBackwardData, OpRole::kBackwardWeight};
      k.op = Op::make_conv(cs, roles[(n / 6) % 3]);
    } else {
      GemmShape g{pick(1, 40), pick(1, 40), pick(1, 40)};
      if (n % 7 == 3) g.k = 1;
      k.op = Op::make_gemm(g);
    }
    cases.push_back(k);
  }
  return cases;
}

void check_cross_fidelity(const Dataflow& df, std::uint64_t seed) {
  const std::vector<Case> cases = random_cases(seed, 240);
  int checked = 0, in_accumulator = 0;
  for (std::size_t n = 0; n < cases.size(); ++n) {
    const Case& k = cases[n];
    const GemmShape g = lower_to_gemm(k.op);
    INFO(df.name() << " case " << n << ": " << k.op.describe() << " (M=" << g.m << " N=" << g.n
                   << " K=" << g.k << ") on " << k.acc.rows << "x" << k.acc.cols << ", accumulator "
                   << k.acc.accumulator.words);
    const OpStats fast = df.evaluate(k.op, k.acc);
    OperandValues v = make_operands(k.op, true, 1000 + n);
    const std::vector<double> expected = reference_gemm(g, v.a, v.b);
    auto engine = df.engine(k.op, k.acc, std::move(v));
    std::int64_t steps = 0, last_fold = -1;
    int max_active = 0;
    bool folds_in_order = true;
    while (engine->step()) {
      ++steps;
      folds_in_order = folds_in_order && engine->fold() >= last_fold;
      last_fold = engine->fold();
      max_active = std::max(max_active, engine->active_pes());
    }
    CHECK(max_active <= k.acc.rows * k.acc.cols);
    // The last fold may run entirely in the final, uncounted cycle (os with L = 1).
    CHECK(engine->fold() == mapping_value(fast, "folds") - 1);
    CHECK_FALSE(engine->step());  // stays done
    CHECK(steps == fast.compute_cycles);
    CHECK(folds_in_order);
    CHECK(first_difference(fast, engine->stats()) == "");
    CHECK(engine->result() == expected);
    ++checked;
    in_accumulator += fast.acc.writes[kOfmap] > 0;
  }
  CHECK(checked >= 200);
  CHECK(in_accumulator >= 30);
}

}  // namespace

TEST_CASE("ws engine agrees with its closed form and computes A x B", "[dataflow][systolic]") {
  check_cross_fidelity(dataflow_or_throw("ws"), 11);
}

TEST_CASE("os engine agrees with its closed form and computes A x B", "[dataflow][systolic]") {
  check_cross_fidelity(dataflow_or_throw("os"), 12);
}

TEST_CASE("is engine agrees with its closed form and computes A x B", "[dataflow][systolic]") {
  check_cross_fidelity(dataflow_or_throw("is"), 13);
}

TEST_CASE("systolic engines on the smallest shapes", "[dataflow][systolic]") {
  // M = N = K = 1 on 1x1: os has one fold of L = 1 cycle, so SCALE-Sim reports 0 cycles; the
  // engine still does its one MAC, in the step() that returns false.
  for (const char* name : {"ws", "os", "is"}) {
    const Dataflow& df = dataflow_or_throw(name);
    const Op op = Op::make_gemm({1, 1, 1});
    auto eng = df.engine(op, array(1, 1), {{2.0}, {-3.0}});
    std::int64_t steps = 0;
    while (eng->step()) ++steps;
    INFO(name);
    CHECK(steps == df.evaluate(op, array(1, 1)).compute_cycles);
    CHECK(eng->stats().macs == 1);
    CHECK(eng->result() == std::vector<double>{-6.0});
  }
  CHECK(dataflow_or_throw("os").evaluate(Op::make_gemm({1, 1, 1}), array(1, 1)).compute_cycles ==
        0);
}
