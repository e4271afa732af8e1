// Pipeline schedules executed on the SystemC platform in unit steps (4 stages, forward 1,
// backward 2, free links): the step counts of ADA-GP's Figures 10-12 (Janfaza et al.,
// section 6.5) and the bubble formulas of GPipe, 1F1B, interleaved 1F1B, ZB-H1 and Chimera
// on a grid of stages and micro-batches. Exact: every cost is a whole number of steps.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "sim/core/error.h"
#include "sim/pipeline/schedule.h"
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

TEST_CASE("A schedule given as data runs as the shipped schedule with the same orders",
          "[pipeline][custom]") {
  // schedule: custom takes each device's tasks of one batch as Zero Bubble's schedules are
  // written. Given GPipe's, 1F1B's and ZB-H1's orders for 4 devices and 4 micro-batches (from
  // their files), it must time every task as they do, Phase GP batches included.
  using Orders = std::vector<std::vector<std::string>>;
  const Orders gpipe(4, {"F0", "F1", "F2", "F3", "B0", "B1", "B2", "B3"});
  const Orders one_f_one_b = {{"F0", "F1", "F2", "F3", "B0", "B1", "B2", "B3"},
                              {"F0", "F1", "F2", "B0", "F3", "B1", "B2", "B3"},
                              {"F0", "F1", "B0", "F2", "B1", "F3", "B2", "B3"},
                              {"F0", "B0", "F1", "B1", "F2", "B2", "F3", "B3"}};
  const Orders zb_h1 = {{"F0", "F1", "F2", "F3", "B0", "W0", "B1", "W1", "B2", "W2", "B3", "W3"},
                        {"F0", "F1", "F2", "B0", "F3", "B1", "W0", "B2", "W1", "B3", "W2", "W3"},
                        {"F0", "F1", "B0", "F2", "B1", "F3", "B2", "W0", "B3", "W1", "W2", "W3"},
                        {"F0", "B0", "F1", "B1", "F2", "B2", "F3", "B3", "W0", "W1", "W2", "W3"}};
  struct Case {
    const char* shipped;
    const Orders* orders;
  };
  const StepCosts uneven{1, 3, 2, 1};  // F 1, B 3 (split: B 2, W 1): no ties between passes
  for (const Case& c : {Case{"gpipe", &gpipe}, Case{"1f1b", &one_f_one_b}, Case{"zb-h1", &zb_h1}})
    for (const std::vector<BatchKind>& batches :
         {std::vector<BatchKind>{BP}, std::vector<BatchKind>{GP, BP, BP}}) {
      INFO(c.shipped << ", " << batches.size() << " batches");
      const auto shipped = run_steps(c.shipped, 4, 4, batches, uneven);
      const auto given = run_steps("custom", 4, 4, batches, uneven, 1, *c.orders);
      CHECK(given.orders == shipped.orders);
      REQUIRE(given.result.tasks.size() == shipped.result.tasks.size());
      for (std::size_t i = 0; i < given.result.tasks.size(); ++i) {
        CHECK(given.result.tasks[i].start_ps == shipped.result.tasks[i].start_ps);
        CHECK(given.result.tasks[i].end_ps == shipped.result.tasks[i].end_ps);
      }
      CHECK(given.steps() == shipped.steps());
    }
  // Orders of its own. GPipe with 1F1B on the last stage only, no shipped schedule: the last
  // stage's backwards end at 6, 9, 12 and 15 (F 1, B 2), the others' follow them down, and
  // the first stage's last backward ends at 21, GPipe's count.
  Orders mixed = gpipe;
  mixed[3] = one_f_one_b[3];
  CHECK(run_steps("custom", 4, 4, {BP}, {}, 1, mixed).steps() == 21);
  // 1F1B with GPipe on the last stage cannot finish: stage 2 runs B0 before F2, which stage
  // 3's forward of micro-batch 2 needs before it runs B0. Refused with what waits for what.
  Orders stuck = one_f_one_b;
  stuck[3] = gpipe[3];
  CHECK_THROWS_WITH(
      run_steps("custom", 4, 4, {BP}, {}, 1, stuck),
      Catch::Contains("cannot finish") && Catch::Contains("dev3 waits in 'F b0 m2 s3'"));
}

TEST_CASE("A schedule given as data refuses orders that cannot be", "[pipeline][custom][errors]") {
  using Orders = std::vector<std::vector<std::string>>;
  auto layout_of = [](const Orders& o, int micro) {
    return schedule_named("custom").layout({2, micro, 1, o});
  };
  CHECK_THROWS_WITH(layout_of({}, 1), Catch::Contains("needs pipeline.orders"));
  CHECK_THROWS_WITH(layout_of({{"F0", "B0"}}, 1), Catch::Contains("1 lists"));
  CHECK_THROWS_WITH(layout_of({{"F0", "B0"}, {"F0", "b0"}}, 1),
                    Catch::Contains("pipeline.orders[1][1]: 'b0' is no task"));
  CHECK_THROWS_WITH(layout_of({{"F0", "B0"}, {"F0", "B"}}, 1),
                    Catch::Contains("needs a micro-batch number"));
  CHECK_THROWS_WITH(layout_of({{"F0", "B0"}, {"F0", "B0", "F0"}}, 1),
                    Catch::Contains("listed twice"));
  CHECK_THROWS_WITH(layout_of({{"F0", "B0", "W0"}, {"F0", "B0"}}, 1),
                    Catch::Contains("device 1 never runs W0"));
  CHECK_THROWS_WITH(layout_of({{"F0", "B0"}, {"F0", "B1"}}, 1), Catch::Contains("a batch has 1"));
  CHECK_NOTHROW(layout_of({{"F0", "B0", "W0"}, {"F0", "B0", "W0"}}, 1));
}
