// `trainsim sweep` through the real binary: a grid runs to a complete sweep.csv; a sweep
// stopped midway finishes when run again without redoing finished points; shards merge to
// the single run's table; points run in shared worker processes (forked) give the table of a
// process per point (a program of its own), and a point that crashes its worker fails alone; the
// memo of op costs serves later sweeps and runs without changing a byte of their results; bad sweep
// files and bad memos fail with one line and write nothing.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <sstream>
#include <vector>

#include "tests/integration/cli_runner.h"

using namespace trainsim;
using namespace trainsim::test;
namespace fs = std::filesystem;

namespace {

// LeNet-5 shape only on 2,000 Fashion-MNIST samples: 4 dataflows x 3 arrays = 12 points,
// a fraction of a second each.
std::string sweep_file(const std::string& dir, const std::string& axes_extra = "") {
  write_file(dir + "/exp.yaml",
             "name: s\nnetwork: lenet5\nnumerics: none\n"
             "dataset: {name: fashion-mnist, train_limit: 2000, test_limit: 100}\n"
             "training: {epochs: 1, batch_size: 32}\naccelerator: adagp_ws180\n");
  write_file(
      dir + "/sweep.yaml",
      "experiment: exp.yaml\n"
      "axes:\n"
      "  - {key: dataflow, values: [ws, os, is, rs]}\n"
      "  - zip: {accelerator.array.rows: [8, 12, 16], accelerator.array.cols: [8, 15, 16]}\n" +
          axes_extra + "baseline: {dataflow: ws, accelerator.array.rows: 12}\n");
  return dir + "/sweep.yaml";
}

fs::file_time_type mtime(const std::string& path) {
  return fs::last_write_time(path);
}

}  // namespace

TEST_CASE("A sweep runs every point into sweep.csv, with speedups and the Pareto front",
          "[sweep]") {
  require_dataset("fashion-mnist");
  const std::string dir = fresh_dir("sweep-grid");
  const auto r = run_trainsim({"sweep", sweep_file(dir), "--out", dir + "/out", "-j", "2"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const auto rows = csv_rows(read_file(dir + "/out/sweep.csv"));
  REQUIRE(rows.size() == 12);
  int pareto = 0;
  for (const auto& row : rows) {
    CHECK(row.at("status") == "done");
    CHECK(std::stod(row.at("seconds")) > 0);
    CHECK(fs::exists(dir + "/out/points/" + row.at("id") + "/run/stats.json"));
    pareto += row.at("pareto") == "1";
    if (row.at("dataflow") == "ws" && row.at("accelerator.array.rows") == "12")
      CHECK(row.at("speedup") == "1.000000");
  }
  CHECK(pareto >= 1);
  CHECK(rows[0].at("dataflow") == "ws");  // grid order: the last axis fastest
  CHECK(rows[1].at("accelerator.array.rows") == "12");
  // Run again: nothing to do, the same table.
  const std::string before = read_file(dir + "/out/sweep.csv");
  const auto again = run_trainsim({"sweep", sweep_file(dir), "--out", dir + "/out"});
  REQUIRE(again.exit_code == 0);
  CHECK(again.out.find("12 finished before, 0 to run") != std::string::npos);
  CHECK(read_file(dir + "/out/sweep.csv") == before);
}

TEST_CASE("An interrupted sweep finishes when run again, keeping finished points", "[sweep]") {
  require_dataset("fashion-mnist");
  const std::string dir = fresh_dir("sweep-resume");
  const std::string sweep = sweep_file(dir);
  // Ctrl-C after the 5th point: the sweep lets nothing else start and stops.
  const auto stopped = run_trainsim({"sweep", sweep, "--out", dir + "/out", "-j", "1"},
                                    {"TRAINSIM_TEST_SWEEP_INTERRUPT_AFTER=5"});
  CHECK(stopped.exit_code == 130);
  auto rows = csv_rows(read_file(dir + "/out/sweep.csv"));
  REQUIRE(rows.size() == 5);
  std::vector<fs::file_time_type> times;
  for (const auto& row : rows)
    times.push_back(mtime(dir + "/out/points/" + row.at("id") + "/result.json"));
  const auto resumed = run_trainsim({"sweep", sweep, "--out", dir + "/out", "-j", "2"});
  INFO(resumed.err);
  REQUIRE(resumed.exit_code == 0);
  CHECK(resumed.out.find("5 finished before, 7 to run") != std::string::npos);
  rows = csv_rows(read_file(dir + "/out/sweep.csv"));
  CHECK(rows.size() == 12);
  for (std::size_t i = 0; i < 5; ++i)  // not run again
    CHECK(mtime(dir + "/out/points/" + rows[i].at("id") + "/result.json") == times[i]);
  // The same table as a sweep that was never stopped.
  const auto whole = run_trainsim({"sweep", sweep, "--out", dir + "/whole", "-j", "2"});
  REQUIRE(whole.exit_code == 0);
  CHECK(read_file(dir + "/out/sweep.csv") == read_file(dir + "/whole/sweep.csv"));
}

TEST_CASE("Shards merge to the single run's table", "[sweep]") {
  require_dataset("fashion-mnist");
  const std::string dir = fresh_dir("sweep-shards");
  const std::string sweep = sweep_file(dir);
  REQUIRE(run_trainsim({"sweep", sweep, "--out", dir + "/all", "-j", "2"}).exit_code == 0);
  REQUIRE(run_trainsim({"sweep", sweep, "--out", dir + "/s0", "--shard", "0/2"}).exit_code == 0);
  REQUIRE(run_trainsim({"sweep", sweep, "--out", dir + "/s1", "--shard", "1/2"}).exit_code == 0);
  CHECK(csv_rows(read_file(dir + "/s0/sweep.csv")).size() == 6);
  const auto m = run_trainsim({"sweep", "--merge", dir + "/s0", dir + "/s1", "--out", dir + "/m"});
  INFO(m.err);
  REQUIRE(m.exit_code == 0);
  CHECK(read_file(dir + "/m/sweep.csv") == read_file(dir + "/all/sweep.csv"));
  // Every point on the whole sweep's front has its own page (each was on its shard's front).
  for (const auto& row : csv_rows(read_file(dir + "/m/sweep.csv")))
    if (row.at("pareto") == "1")
      CHECK(fs::exists(dir + "/m/points/" + row.at("id") + "/run/report.html"));
  // A shard alone is not the whole sweep.
  CHECK(run_trainsim({"sweep", "--merge", dir + "/s0", "--out", dir + "/m0"}).exit_code == 1);
}

TEST_CASE("A failing point is recorded and the sweep goes on", "[sweep]") {
  require_dataset("fashion-mnist");
  const std::string dir = fresh_dir("sweep-failing");
  // bp runs shape only; spec-BP, whose work depends on the data, cannot.
  const auto r =
      run_trainsim({"sweep", sweep_file(dir, "  - {key: technique, values: [bp, specbp]}\n"),
                    "--out", dir + "/out", "-j", "2"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const auto rows = csv_rows(read_file(dir + "/out/sweep.csv"));
  REQUIRE(rows.size() == 24);
  for (const auto& row : rows) {
    CHECK(row.at("status") == (row.at("technique") == "bp" ? "done" : "failed"));
    if (row.at("status") == "failed")
      CHECK(row.at("error").find("numerics: none") != std::string::npos);
  }
  // stderr is not a terminal here: a progress line for every failed point, the first and
  // the last, and at most every few seconds for the others.
  int lines = 0, failed_lines = 0;
  std::istringstream err(r.err);
  for (std::string line; std::getline(err, line);) {
    if (line.rfind("sweep: [", 0) != 0) continue;
    ++lines;
    failed_lines += line.find(": failed: ") != std::string::npos;
  }
  CHECK(failed_lines == 12);
  CHECK(lines <= 24);
  CHECK(r.err.find("sweep: [1/24]") != std::string::npos);  // the first (failed or not)
  CHECK(r.err.find("sweep: [24/24]") != std::string::npos);
}

TEST_CASE("The featured points' pages are written at the end, side by side, warnings in order",
          "[sweep][report]") {
  require_dataset("fashion-mnist");
  const std::string dir = fresh_dir("sweep-featured");
  const std::string sweep = sweep_file(dir);
  // First without pages; then the same sweep again, all of whose points are finished: its end
  // writes the pages of the front's points and the baseline's (the featured points), on the
  // sweep's 2 threads.
  const auto first =
      run_trainsim({"sweep", sweep, "--out", dir + "/out", "-j", "2", "--no-report"});
  REQUIRE(first.exit_code == 0);
  std::vector<std::string> featured;  // in the order the sweep names them: front, baseline
  std::string baseline;
  for (const auto& row : csv_rows(read_file(dir + "/out/sweep.csv"))) {
    CHECK_FALSE(fs::exists(dir + "/out/points/" + row.at("id") + "/run/report.html"));
    if (row.at("pareto") == "1") featured.push_back(row.at("id"));
    if (row.at("speedup") == "1.000000") baseline = row.at("id");
  }
  if (std::find(featured.begin(), featured.end(), baseline) == featured.end())
    featured.push_back(baseline);
  REQUIRE(featured.size() >= 3);
  // Two of them cannot be rendered (a damaged stats.json): a warning each, in that order,
  // whichever thread finishes first; the others get their page.
  const std::string broken[2] = {featured.front(), featured.back()};
  for (const std::string& id : broken)
    write_file(dir + "/out/points/" + id + "/run/stats.json", "{");
  const auto again = run_trainsim({"sweep", sweep, "--out", dir + "/out", "-j", "2", "-q"});
  INFO(again.err);
  REQUIRE(again.exit_code == 0);
  std::vector<std::string> warned;
  std::istringstream err(again.err);
  for (std::string line; std::getline(err, line);)
    if (line.rfind("sweep: no report.html for point ", 0) == 0)
      warned.push_back(line.substr(32, 16));
  CHECK(warned == std::vector<std::string>{broken[0], broken[1]});
  for (const std::string& id : featured) {
    const std::string run = dir + "/out/points/" + id + "/run";
    const bool ok = id != broken[0] && id != broken[1];
    CHECK(fs::exists(run + "/report.html") == ok);
    CHECK((read_file(run + "/.trainsim-manifest").find("\nreport.html\n") != std::string::npos) ==
          ok);
  }
  CHECK(fs::exists(dir + "/out/report.html"));
}

TEST_CASE("Points run in worker processes give the table a process per point gives", "[sweep]") {
  require_dataset("fashion-mnist");
  const std::string dir = fresh_dir("sweep-workers");
  const std::string sweep = sweep_file(dir, "  - {key: training.batch_size, values: [16, 32]}\n");
  // One worker runs all 24 points, one after another, sharing its cost memo; --isolate
  // starts a process for every point, as sweeps did before workers, and here each is the
  // trainsim program started afresh (exec), where workers are forked copies of the sweep.
  const auto shared = run_trainsim({"sweep", sweep, "--out", dir + "/shared", "-j", "1"});
  INFO(shared.err);
  REQUIRE(shared.exit_code == 0);
  const auto isolated =
      run_trainsim({"sweep", sweep, "--out", dir + "/isolated", "-j", "2", "--isolate"},
                   {"TRAINSIM_TEST_WORKER_EXEC=1"});
  INFO(isolated.err);
  REQUIRE(isolated.exit_code == 0);
  CHECK(read_file(dir + "/shared/sweep.csv") == read_file(dir + "/isolated/sweep.csv"));
  const auto rows = csv_rows(read_file(dir + "/shared/sweep.csv"));
  REQUIRE(rows.size() == 24);
  for (const auto& row : rows) {
    const std::string pd = "/points/" + row.at("id") + "/run/";
    CHECK(read_file(dir + "/shared" + pd + "stats.json") ==
          read_file(dir + "/isolated" + pd + "stats.json"));
  }
}

TEST_CASE("A point that kills its worker fails alone and the next points run in a new worker",
          "[sweep]") {
  require_dataset("fashion-mnist");
  const std::string dir = fresh_dir("sweep-crash");
  const std::string sweep = sweep_file(dir);
  // Test hook: a worker dies (SIGKILL) in every point with this argument, as in a crash.
  const auto r = run_trainsim({"sweep", sweep, "--out", dir + "/out", "-j", "1"},
                              {"TRAINSIM_TEST_POINT_KILL=dataflow=os"});
  INFO(r.err);
  CHECK(r.exit_code == 0);
  const auto clean = run_trainsim({"sweep", sweep, "--out", dir + "/clean", "-j", "2"});
  REQUIRE(clean.exit_code == 0);
  const auto rows = csv_rows(read_file(dir + "/out/sweep.csv"));
  const auto want = csv_rows(read_file(dir + "/clean/sweep.csv"));
  REQUIRE(rows.size() == 12);
  REQUIRE(want.size() == 12);
  int failed = 0;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    INFO(rows[i].at("id"));
    if (rows[i].at("dataflow") == "os") {
      ++failed;
      CHECK(rows[i].at("status") == "failed");
      CHECK(rows[i].at("error") == "killed by a signal");
    } else {
      CHECK(rows[i].at("status") == "done");
      CHECK(rows[i].at("cycles") == want[i].at("cycles"));
      CHECK(rows[i].at("energy") == want[i].at("energy"));
    }
  }
  CHECK(failed == 3);
}

TEST_CASE("Bad sweeps: one line, exit 2, nothing written", "[sweep][errors]") {
  const std::string dir = fresh_dir("sweep-errors");
  write_file(dir + "/exp.yaml",
             "name: s\nnetwork: lenet5\nnumerics: none\ndataset: {name: fashion-mnist}\n");
  struct Case {
    std::string body;
    std::vector<std::string> mentions;
  };
  const std::vector<Case> cases = {
      {"experiment: exp.yaml\naxes: [{key: training.epochz, values: [1, 2]}]\n",
       {"training.epochz", "fails for every value"}},
      // The one load of every axis's first value fails: each key is then tried alone.
      {"experiment: exp.yaml\naxes: [{key: dataflow, values: [ws]}, {key: training.epochz, "
       "values: [1]}]\n",
       {"training.epochz", "fails for every value"}},
      {"experiment: exp.yaml\naxes: [{key: dataflow, values: []}]\n", {"at least one value"}},
      {"experiment: exp.yaml\naxes: [{zip: {dataflow: [ws, os], training.epochs: [1]}}]\n",
       {"same length"}},
      {"experiment: exp.yaml\naxes: []\n", {"at least one axis"}},
      {"experiment: exp.yaml\naxes: [{key: dataflow, values: [ws, ws]}]\n", {"same value twice"}},
      {"experiment: nothing.yaml\naxes: [{key: dataflow, values: [ws]}]\n", {"no experiment file"}},
      {"experiment: exp.yaml\naxes: [{key: dataflow, values: [ws]}]\nsearch: {mode: random}\n",
       {"budget"}},
  };
  for (std::size_t i = 0; i < cases.size(); ++i) {
    INFO(cases[i].body);
    write_file(dir + "/sweep.yaml", cases[i].body);
    require_clean_failure(run_trainsim({"sweep", dir + "/sweep.yaml", "--out", dir + "/out"}),
                          dir + "/out", cases[i].mentions);
  }
  // The results directory of another sweep is left alone.
  const std::string other = dir + "/other";
  write_file(dir + "/other.yaml", "experiment: exp.yaml\naxes: [{key: dataflow, values: [os]}]\n");
  REQUIRE(run_trainsim({"sweep", dir + "/other.yaml", "-q", "--out", other}).exit_code == 0);
  const std::string state = read_file(other + "/sweep.json");
  write_file(dir + "/sweep.yaml", "experiment: exp.yaml\naxes: [{key: dataflow, values: [ws]}]\n");
  auto r = run_trainsim({"sweep", dir + "/sweep.yaml", "--out", other});
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("holds another sweep") != std::string::npos);
  CHECK(read_file(other + "/sweep.json") == state);
  // A state file without a checksum (an older trainsim's, or not trainsim's) is named.
  const std::string old = dir + "/old";
  fs::create_directories(old);
  write_file(old + "/sweep.json", "{\"sweep\": \"x\", \"text\": \"y\", \"shard\": \"0/1\"}\n");
  r = run_trainsim({"sweep", dir + "/sweep.yaml", "--out", old});
  CHECK(r.exit_code == 2);
  CHECK(line_count(r.err) == 1);
  CHECK(r.err.find("sweep.json: no checksum") != std::string::npos);
  CHECK(read_file(old + "/sweep.json").find("\"y\"") != std::string::npos);
  CHECK_FALSE(fs::exists(old + "/points"));
}

TEST_CASE("A sweep keeps its op costs in DIR/memo, and a sweep naming it searches nothing again",
          "[sweep][memo]") {
  require_dataset("fashion-mnist");
  const std::string dir = fresh_dir("sweep-memo");
  const std::string sweep = sweep_file(dir);
  const auto first = run_trainsim({"sweep", sweep, "--out", dir + "/a", "-j", "2", "-q"});
  INFO(first.err);
  REQUIRE(first.exit_code == 0);
  REQUIRE(exists(dir + "/a/memo/README.txt"));
  const std::uintmax_t stored = bytes_under(dir + "/a/memo");
  CHECK(stored > 0);
  // Another sweep of the same points reads every cost from it: the same table and points,
  // and nothing new stored (an op priced again would be).
  const auto second = run_trainsim(
      {"sweep", sweep, "--out", dir + "/b", "-j", "2", "-q", "--memo", dir + "/a/memo"});
  INFO(second.err);
  REQUIRE(second.exit_code == 0);
  CHECK(read_file(dir + "/b/sweep.csv") == read_file(dir + "/a/sweep.csv"));
  for (const auto& row : csv_rows(read_file(dir + "/a/sweep.csv"))) {
    const std::string pd = "/points/" + row.at("id") + "/run/stats.json";
    CHECK(read_file(dir + "/b" + pd) == read_file(dir + "/a" + pd));
  }
  CHECK(bytes_under(dir + "/a/memo") == stored);
  CHECK_FALSE(exists(dir + "/b/memo"));
  // A sweep stopped midway and resumed keeps its memo and ends with the same table.
  const auto stopped = run_trainsim({"sweep", sweep, "--out", dir + "/c", "-j", "1", "-q"},
                                    {"TRAINSIM_TEST_SWEEP_INTERRUPT_AFTER=4"});
  CHECK(stopped.exit_code == 130);
  const std::uintmax_t partial = bytes_under(dir + "/c/memo");
  CHECK(partial > 0);
  REQUIRE(run_trainsim({"sweep", sweep, "--out", dir + "/c", "-q"}).exit_code == 0);
  CHECK(read_file(dir + "/c/sweep.csv") == read_file(dir + "/a/sweep.csv"));
  CHECK(bytes_under(dir + "/c/memo") > partial);
  // --force starts another sweep over it: the memo is trainsim's, so it goes with the rest.
  const auto other =
      run_trainsim({"sweep", sweep_file(dir, "  - {key: training.epochs, values: [2]}\n"), "--out",
                    dir + "/c", "-q", "--force", "--no-memo"});
  INFO(other.err);
  REQUIRE(other.exit_code == 0);
  CHECK_FALSE(exists(dir + "/c/memo"));
  // Without --memo a run keeps no costs; with it, a second run stores nothing new.
  const std::string exp = dir + "/exp.yaml";
  REQUIRE(run_trainsim({"run", exp, "--out", dir + "/r", "-q", "--memo", dir + "/m"}).exit_code ==
          0);
  const std::uintmax_t run_stored = bytes_under(dir + "/m");
  CHECK(run_stored > 0);
  REQUIRE(
      run_trainsim({"run", exp, "--out", dir + "/r", "-q", "-f", "--memo", dir + "/m"}).exit_code ==
      0);
  CHECK(bytes_under(dir + "/m") == run_stored);
}

TEST_CASE("Bad memos: one line, exit 2, nothing written", "[sweep][memo][errors]") {
  require_dataset("fashion-mnist");
  const std::string dir = fresh_dir("sweep-memo-errors");
  const std::string sweep = sweep_file(dir);
  fs::create_directories(dir + "/mine");
  write_file(dir + "/mine/notes.txt", "a user's file\n");
  require_clean_failure(
      run_trainsim({"sweep", sweep, "--out", dir + "/out", "--memo", dir + "/mine"}), dir + "/out",
      {"not a trainsim memo", "mine"});
  require_clean_failure(
      run_trainsim({"run", dir + "/exp.yaml", "--out", dir + "/out", "--memo", dir + "/mine"}),
      dir + "/out", {"not a trainsim memo"});
  CHECK(read_file(dir + "/mine/notes.txt") == "a user's file\n");
  require_clean_failure(
      run_trainsim({"sweep", sweep, "--out", dir + "/out", "--memo", dir + "/m", "--no-memo"}),
      dir + "/out", {"--memo and --no-memo"});
  require_clean_failure(
      run_trainsim({"sweep", sweep, "--out", dir + "/out", "--point-reports", "some"}),
      dir + "/out", {"--point-reports", "'some'"});
  require_clean_failure(run_trainsim({"sweep", sweep, "--out", dir + "/out", "--point-reports",
                                      "all", "--no-report"}),
                        dir + "/out", {"--point-reports and --no-report"});
  require_clean_failure(
      run_trainsim({"run", dir + "/exp.yaml", "--out", dir + "/out", "--memo", dir + "/out/memo"}),
      dir + "/out", {"inside the results directory"});
  require_clean_failure(run_trainsim({"compare", dir + "/exp.yaml", "--techniques", "bp", "--out",
                                      dir + "/out", "--memo", dir + "/out"}),
                        dir + "/out", {"inside the results directory"});
  CHECK_FALSE(exists(dir + "/m"));
}
