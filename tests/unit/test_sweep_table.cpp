// The pieces a large sweep stands on: points formed from their position (PointList) equal
// the full enumeration, shard by shard; sweep.csv formed from rows on disk (RowStore,
// write_sweep_table) carries the Pareto front and speedups a brute-force check over all rows
// gives; a streamed file appears whole or not at all.
#include <catch2/catch.hpp>

#include <algorithm>
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
  for (std::size_t k = 0; k < rows.size(); ++k)
    if (rows[k] && rows[k]->done && !base && is_baseline(s, rows[k]->point))
      base = rows[k]->result.seconds;
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
