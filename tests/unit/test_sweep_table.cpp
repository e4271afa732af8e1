// The pieces a large sweep stands on: points formed from their position (PointList) equal
// the full enumeration, shard by shard; sweep.csv formed from rows on disk (RowStore,
// write_sweep_table) carries the Pareto front and speedups a brute-force check over all rows
// gives; a streamed file appears whole or not at all.
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>

#include "sim/core/csv.h"
#include "sim/core/error.h"
#include "sim/core/format.h"
#include "sim/core/rng.h"
#include "sim/io/file_set.h"
#include "sim/sweep/row_store.h"
#include "sim/sweep/sweep_run.h"
#include "sim/sweep/sweep_table.h"
#include "tests/support/temp_dir.h"

using namespace trainsim;
using trainsim::test::TempDir;

namespace {

SweepSpec three_axes() {
  SweepSpec s;
  s.source = "sweep.yaml";
  s.axes.push_back({{"dataflow"}, {{"ws"}, {"os"}, {"is"}}});
  s.axes.push_back({{"rows", "cols"}, {{"8", "8"}, {"16", "15"}}});
  s.axes.push_back({{"batch"}, {{"1"}, {"2"}, {"4"}, {"8"}, {"16"}}});
  return s;
}

std::string read(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream t;
  t << in.rdbuf();
  return t.str();
}

}  // namespace

TEST_CASE("A point list forms the grid's points in row-major order, shard by shard", "[sweep]") {
  const SweepSpec s = three_axes();
  const PointList all(s);
  REQUIRE(all.size() == 30);
  std::size_t i = 0;
  std::set<std::string> ids;
  for (const char* df : {"ws", "os", "is"})
    for (auto rc : {std::pair<const char*, const char*>{"8", "8"}, {"16", "15"}})
      for (const char* b : {"1", "2", "4", "8", "16"}) {
        const SweepPoint p = all.at(i);
        CHECK(p.index == i);
        const std::vector<std::pair<std::string, std::string>> want = {
            {"dataflow", df}, {"rows", rc.first}, {"cols", rc.second}, {"batch", b}};
        CHECK(p.values == want);
        CHECK(p.id == point_id(want));
        ids.insert(p.id);
        ++i;
      }
  CHECK(ids.size() == 30);
  // Shard 2 of 4: points 2, 6, 10, ..., 26 of the whole list.
  const PointList shard(s, 2, 4);
  REQUIRE(shard.size() == 7);
  for (std::size_t k = 0; k < shard.size(); ++k) {
    CHECK(shard.at(k).index == 2 + 4 * k);
    CHECK(shard.at(k).id == all.at(2 + 4 * k).id);
  }
  CHECK(PointList(s, 3, 40).size() == 1);
  CHECK(PointList(s, 35, 40).size() == 0);
}

TEST_CASE("A random point list draws distinct grid points, the same in every shard", "[sweep]") {
  SweepSpec s = three_axes();
  s.mode = "random";
  s.budget = 9;
  s.seed = 7;
  const PointList all(s);
  REQUIRE(all.size() == 9);
  const std::vector<SweepPoint> grid = sweep_points(three_axes());
  std::size_t last_grid = 0;
  for (std::size_t k = 0; k < all.size(); ++k) {
    const SweepPoint p = all.at(k);
    CHECK(p.index == k);
    auto g =
        std::find_if(grid.begin(), grid.end(), [&](const SweepPoint& q) { return q.id == p.id; });
    REQUIRE(g != grid.end());
    const std::size_t at = static_cast<std::size_t>(g - grid.begin());
    if (k > 0) CHECK(at > last_grid);  // in grid order, no repeats
    last_grid = at;
  }
  const PointList odd(s, 1, 2);
  for (std::size_t k = 0; k < odd.size(); ++k) CHECK(odd.at(k).id == all.at(1 + 2 * k).id);
  // A baseline the sample misses is an error of the sweep, whatever shard asks.
  s.baseline = {{"batch", "3"}};
  CHECK_THROWS_AS(PointList(s, 1, 2), UserError);
}

TEST_CASE("sweep.csv from rows on disk: Pareto front and speedup as a check over all rows give",
          "[sweep]") {
  TempDir tmp("sweep-table");
  SweepSpec s = three_axes();
  s.baseline = {{"dataflow", "os"}, {"batch", "4"}};
  const PointList points(s);
  RowStore store(tmp.path(), points.size());
  // Figures on a coarse lattice so that ties in seconds, in energy and in both occur.
  Rng rng(3);
  std::vector<std::optional<SweepRow>> rows(points.size());
  std::vector<std::size_t> order;
  for (std::size_t k = 0; k < points.size(); ++k) order.push_back(points.size() - 1 - k);
  for (std::size_t k : order) {
    if (k % 7 == 3) continue;  // not finished
    SweepRow r;
    r.point = points.at(k);
    if (k % 11 == 5) {
      r.done = false;
      r.error = "no, \"really\" (point " + std::to_string(k) + ")";
    } else {
      r.done = true;
      r.result.seconds = 1.0 + static_cast<double>(rng.below(6));
      r.result.energy = 10.0 + static_cast<double>(rng.below(6));
      r.result.energy_unit = k % 2 ? "pJ" : "uJ";
      r.result.dram_bytes = static_cast<double>(k) * 1000;
      r.result.utilization = 0.5;
      if (k % 3 == 0) r.result.cycles = 1e6 + static_cast<double>(k);
      if (k % 4 == 0) r.result.test_accuracy = 0.25;
    }
    rows[k] = r;
    store.put(k, r);
  }
  // A point put again (a failed point that finished in a later run) keeps its last row.
  SweepRow again = *rows[5];
  again.done = true;
  again.error.clear();
  again.result.seconds = 0.5;
  again.result.energy = 100;
  again.result.energy_unit = "pJ";
  rows[5] = again;
  store.put(5, again);

  const std::string path = tmp / "sweep.csv";
  const TableCounts counts = write_sweep_table(s, points, store, path);
  const auto table = parse_csv(read(path));
  REQUIRE(!table.empty());
  const std::vector<std::string>& head = table[0];
  auto col = [&](const char* name) {
    return static_cast<std::size_t>(std::find(head.begin(), head.end(), name) - head.begin());
  };
  std::size_t n = 0, failed = 0, front = 0;
  std::optional<double> base;
  std::string base_id;
  std::vector<std::string> front_ids;
  for (std::size_t k = 0; k < rows.size(); ++k)
    if (rows[k] && rows[k]->done && !base && is_baseline(s, rows[k]->point)) {
      base = rows[k]->result.seconds;
      base_id = rows[k]->point.id;
    }
  REQUIRE(base);
  std::size_t line = 1;
  for (std::size_t k = 0; k < rows.size(); ++k) {
    if (!rows[k]) continue;
    ++n;
    REQUIRE(line < table.size());
    const std::vector<std::string>& cells = table[line++];
    const SweepRow& r = *rows[k];
    CHECK(cells[0] == r.point.id);
    CHECK(cells[col("batch")] == r.point.values.back().second);
    if (!r.done) {
      ++failed;
      CHECK(cells[col("status")] == "failed");
      CHECK(cells[col("error")] == r.error);
      continue;
    }
    bool dominated = false;
    for (const auto& o : rows)
      if (o && o->done && o->result.seconds <= r.result.seconds &&
          o->result.energy <= r.result.energy &&
          (o->result.seconds < r.result.seconds || o->result.energy < r.result.energy))
        dominated = true;
    front += !dominated;
    if (!dominated) front_ids.push_back(r.point.id);
    CHECK(cells[col("pareto")] == (dominated ? "0" : "1"));
    CHECK(cells[col("energy_unit")] == r.result.energy_unit);
    CHECK(cells[col("cycles")] == (r.result.cycles ? fmt("%.0f", *r.result.cycles) : ""));
    CHECK(cells[col("test_accuracy")] == (r.result.test_accuracy ? "0.250000" : ""));
    CHECK(std::stod(cells[col("speedup")]) == Approx(*base / r.result.seconds).epsilon(1e-6));
  }
  CHECK(line == table.size());
  CHECK(counts.rows == n);
  CHECK(counts.failed == failed);
  CHECK(counts.pareto == front);
  CHECK(front >= 2);  // the lattice gives a front of more than one row
  // The featured points: the front's in point order, then the baseline, off the front here.
  REQUIRE(std::find(front_ids.begin(), front_ids.end(), base_id) == front_ids.end());
  front_ids.push_back(base_id);
  CHECK(counts.featured == front_ids);
  CHECK(store.finished() == n);
  CHECK(store.failed() == failed);
}

TEST_CASE("A streamed file appears whole at its commit, and not at all without one", "[io]") {
  TempDir tmp("streamed");
  const std::string path = tmp / "t.csv";
  write_text_file(path, "old\n");
  {
    StreamedFile f(path);
    f.append("new ");
    f.append("half");
    CHECK(read(path) == "old\n");
  }  // dropped: no commit
  CHECK(read(path) == "old\n");
  CHECK(!std::filesystem::exists(path + ".tmp"));
  StreamedFile f(path);
  f.append("a,b\n");
  f.append("1,2\n");
  f.commit();
  CHECK(read(path) == "a,b\n1,2\n");
  CHECK(!std::filesystem::exists(path + ".tmp"));
}

TEST_CASE("Pending hands every unfinished point out once: runs of consecutive points per lane",
          "[sweep]") {
  const std::size_t n = 1000;
  Pending pending(n, 2);
  for (std::size_t k = 0; k < n; k += 7) pending.mark_finished(k);  // finished before
  const std::size_t total = pending.total();
  CHECK(total == n - 143);
  std::vector<int> seen(n, 0);
  std::array<std::vector<std::size_t>, 3> by_lane;
  // Lanes 0 and 1 take in turn; lane 2 (a third worker appearing late) joins at the end.
  std::size_t k = 0, taken = 0;
  Rng rng(5);
  for (;;) {
    const std::size_t lane = taken > 600 ? rng.below(3) : rng.below(2);
    if (!pending.take(k, lane)) break;
    ++taken;
    REQUIRE(k < n);
    ++seen[k];
    by_lane[lane].push_back(k);
  }
  CHECK(taken == total);
  CHECK(pending.untaken() == 0);
  for (std::size_t i = 0; i < n; ++i) CHECK(seen[i] == (i % 7 == 0 ? 0 : 1));
  // Mostly consecutive: runs of four points or more on average (shorter near the end).
  for (const auto& ks : by_lane) {
    std::size_t jumps = 0;
    for (std::size_t i = 1; i < ks.size(); ++i)
      jumps += ks[i] != ks[i - 1] + 1 && ks[i] != ks[i - 1] + 2;
    CHECK(jumps * 4 <= ks.size());
  }
  // Every lane keeps getting points until none is left: a lane never waits on another's run.
  Pending tail(10, 2);
  CHECK(tail.take(k, 0));
  std::size_t lane1 = 0;
  while (tail.take(k, 1)) ++lane1;
  CHECK(lane1 == 9);  // lane 0 ran one point; lane 1 took its own runs, then lane 0's rest
  // Groups (a design's buffer sizes, the last axis): runs start and end on their
  // boundaries, so each group's points go to one lane, but where a run within one group is
  // split at the very end. Without groups, run boundaries fall anywhere.
  auto split_groups = [&](std::size_t m, std::size_t group, std::size_t stated) {
    Pending grouped(m, 2, stated);
    std::vector<int> lane_of(m, -1);
    std::size_t handed = 0;
    for (;;) {
      const std::size_t lane = rng.below(2);
      if (!grouped.take(k, lane)) break;
      REQUIRE(lane_of[k] < 0);
      lane_of[k] = static_cast<int>(lane);
      ++handed;
    }
    CHECK(handed == m);
    std::size_t split = 0;
    for (std::size_t g = 0; g < m; g += group)
      for (std::size_t i = g + 1; i < g + group; ++i)
        if (lane_of[i] != lane_of[g]) {
          ++split;
          break;
        }
    return split;
  };
  CHECK(split_groups(600, 3, 3) <= 4);
  CHECK(split_groups(600, 5, 5) <= 4);
  CHECK(split_groups(600, 3, 1) >= 10);
  Pending dropped(10, 1);
  CHECK(dropped.take(k, 0));
  dropped.drop();
  CHECK(!dropped.take(k, 0));
  CHECK(dropped.untaken() == 0);
}
