// Pipeline schedules executed on the SystemC platform in unit steps (4 stages, forward 1,
// backward 2, free links): the step counts of ADA-GP's Figures 10-12 (Janfaza et al.,
// section 6.5) and the bubble formulas of GPipe, 1F1B, interleaved 1F1B, ZB-H1 and Chimera
// on a grid of stages and micro-batches. Exact: every cost is a whole number of steps.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "sim/core/error.h"
#include "tests/support/pipeline_steps.h"

using namespace trainsim;
using trainsim::test::run_steps;
using trainsim::test::StepCosts;

namespace {
constexpr BatchKind BP = BatchKind::kBackprop, GP = BatchKind::kForwardOnly;
std::vector<BatchKind> repeat(std::vector<BatchKind> unit, int times) {
  std::vector<BatchKind> out;
  for (int i = 0; i < times; ++i) out.insert(out.end(), unit.begin(), unit.end());
  return out;
}
}  // namespace

TEST_CASE("One batch on 4 devices, 4 micro-batches: GPipe 21, 1F1B 21, Chimera 16 steps") {
  CHECK(run_steps("gpipe", 4, 4, {BP}).steps() == 21);
  CHECK(run_steps("1f1b", 4, 4, {BP}).steps() == 21);
  CHECK(run_steps("chimera", 4, 4, {BP}).steps() == 16);
}

TEST_CASE("ADA-GP: a Phase GP batch then a Phase BP batch take 25 / 25 / 20 steps") {
  CHECK(run_steps("gpipe", 4, 4, {GP, BP}).steps() == 25);
  CHECK(run_steps("1f1b", 4, 4, {GP, BP}).steps() == 25);
  CHECK(run_steps("chimera", 4, 4, {GP, BP}).steps() == 20);
  // The other order drains the Phase GP batch's forwards through the pipeline at the end
  // (docs/pipelines.md): 28 / 28 / 22.
  CHECK(run_steps("gpipe", 4, 4, {BP, GP}).steps() == 28);
  CHECK(run_steps("1f1b", 4, 4, {BP, GP}).steps() == 28);
  CHECK(run_steps("chimera", 4, 4, {BP, GP}).steps() == 22);
}

TEST_CASE("ADA-GP: alternating Phase GP and Phase BP costs 25 / 25 / 20 steps per pair") {
  for (int pairs : {2, 3, 5}) {
    INFO(pairs << " pairs");
    CHECK(run_steps("gpipe", 4, 4, repeat({GP, BP}, pairs)).steps() == 25 * pairs);
    CHECK(run_steps("1f1b", 4, 4, repeat({GP, BP}, pairs)).steps() == 25 * pairs);
    CHECK(run_steps("chimera", 4, 4, repeat({GP, BP}, pairs)).steps() == 20 * pairs);
    // Starting with Phase BP: the same per pair, plus the last Phase GP batch's drain.
    CHECK(run_steps("gpipe", 4, 4, repeat({BP, GP}, pairs)).steps() == 25 * pairs + 3);
    CHECK(run_steps("chimera", 4, 4, repeat({BP, GP}, pairs)).steps() == 20 * pairs + 2);
  }
  // Backprop batches alone are additive: the next batch starts once the updates are done.
  CHECK(run_steps("gpipe", 4, 4, repeat({BP}, 3)).steps() == 63);
  CHECK(run_steps("chimera", 4, 4, repeat({BP}, 3)).steps() == 48);
}

TEST_CASE("GPipe and 1F1B: idle (p-1)/(m+p-1) of the time, in flight m and p") {
  for (int p = 2; p <= 6; ++p)
    for (int m = 1; m <= 12; ++m)
      for (StepCosts c : {StepCosts{1, 2}, StepCosts{1, 1}, StepCosts{2, 3}}) {
        INFO("p " << p << " m " << m << " F " << c.f << " B " << c.b);
        const double expect = static_cast<double>(p - 1) / (m + p - 1);
        const auto gpipe = run_steps("gpipe", p, m, {BP}, c);
        const auto ofob = run_steps("1f1b", p, m, {BP}, c);
        CHECK(gpipe.steps() == (m + p - 1) * (c.f + c.b));
        CHECK(ofob.steps() == (m + p - 1) * (c.f + c.b));
        CHECK(gpipe.idle_fraction() == Approx(expect).margin(1e-12));
        CHECK(ofob.idle_fraction() == Approx(expect).margin(1e-12));
        CHECK(gpipe.peak_inflight(0) == m);
        CHECK(ofob.peak_inflight(0) == std::min(m, p));
        for (int d = 0; d < p; ++d) CHECK(ofob.peak_inflight(d) <= p - d);
      }
}

TEST_CASE("Interleaved 1F1B: idle (1/v)(p-1)/m of the ideal time") {
  for (int p = 2; p <= 6; ++p)
    for (int groups = 1; groups <= 3; ++groups)
      for (int v = 1; v <= 3; ++v)
        for (StepCosts c : {StepCosts{1, 2}, StepCosts{1, 1}}) {
          const int m = groups * p;
          INFO("p " << p << " m " << m << " v " << v << " F " << c.f << " B " << c.b);
          // Chunk costs are F/v and B/v: pick costs divisible by v so every step is whole.
          StepCosts cv{c.f * 6, c.b * 6};
          const auto r = run_steps("interleaved", p, m, {BP}, cv, v);
          const double ideal = m * (cv.f + cv.b);
          CHECK((r.steps() - ideal) / ideal ==
                Approx(static_cast<double>(p - 1) / (v * m)).margin(1e-9));
        }
}

TEST_CASE("ZB-H1: idle (p-1)/(3m) of the ideal time at equal F, B and W, memory of 1F1B") {
  for (int p = 2; p <= 6; ++p)
    for (int m = p; m <= 12; ++m) {
      INFO("p " << p << " m " << m);
      StepCosts c;
      c.f = c.bd = c.w = 1;
      const auto r = run_steps("zb-h1", p, m, {BP}, c);
      const double ideal = 3.0 * m;
      CHECK((r.steps() - ideal) / ideal == Approx((p - 1) / (3.0 * m)).margin(1e-12));
    }
}

TEST_CASE("Chimera: idle (D-2)/(2N+D-2) of the time at equal forward and backward") {
  for (int d : {2, 4, 6, 8})
    for (int n : {d, 2 * d, 3 * d}) {
      INFO("D " << d << " N " << n);
      const auto r = run_steps("chimera", d, n, {BP}, StepCosts{1, 1});
      CHECK(r.idle_fraction() ==
            Approx(static_cast<double>(d - 2) / (2 * n + d - 2)).margin(1e-12));
    }
}

TEST_CASE("Schedules refuse configurations they cannot run") {
  CHECK_THROWS_AS(run_steps("chimera", 3, 4, {BP}), UserError);
  CHECK_THROWS_AS(run_steps("chimera", 4, 3, {BP}), UserError);
  CHECK_THROWS_AS(run_steps("interleaved", 4, 6, {BP}, StepCosts{}, 2), UserError);
  CHECK_THROWS_AS(run_steps("gpipe", 4, 4, {BP}, StepCosts{}, 2), UserError);
  CHECK_THROWS_WITH(run_steps("pipedream-2bw", 4, 4, {BP}),
                    Catch::Contains("unknown schedule 'pipedream-2bw'"));
}
