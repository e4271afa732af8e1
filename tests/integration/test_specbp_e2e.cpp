// Speculative backprop end to end on the real MNIST digits: accuracy against bp, hit rates,
// the never-missing threshold, forced misses and their wasted energy, the two unit options.
#include <catch2/catch.hpp>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "sim/core/paths.h"
#include "tests/integration/cli_runner.h"

using namespace trainsim;
using namespace trainsim::test;
using nlohmann::json;

namespace {

const std::string kQuickstart =
    std::string(TRAINSIM_SOURCE_DIR) + "/configs/experiments/quickstart.yaml";

void run_ok(const std::vector<std::string>& args) {
  const CliResult r = run_trainsim(args);
  INFO("stdout: " << r.out << "\nstderr: " << r.err);
  REQUIRE(r.exit_code == 0);
}

// table[variant][epoch] from one of compare's table_*.csv files.
std::map<std::string, std::vector<std::string>> read_table(const std::string& path) {
  std::map<std::string, std::vector<std::string>> t;
  std::istringstream in(read_file(path));
  std::string line;
  std::getline(in, line);
  std::vector<std::string> names;
  std::stringstream hs(line);
  for (std::string c; std::getline(hs, c, ',');) names.push_back(c);
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    std::stringstream ls(line);
    for (std::string c; std::getline(ls, c, ',');) cells.push_back(c);
    cells.resize(names.size());
    for (std::size_t i = 1; i < names.size(); ++i) t[names[i]].push_back(cells[i]);
  }
  return t;
}

}  // namespace

TEST_CASE("seed_mlp on mnist, 3 epochs: every threshold within 2 points of bp, hit rates",
          "[e2e][specbp]") {
  require_dataset("mnist");
  const std::string dir = fresh_dir("specbp-compare") + "/cmp";
  run_ok({"compare", kQuickstart, "--techniques", "bp,specbp@0.1,specbp@0.175,specbp@0.25", "--set",
          "training.epochs=3", "--out", dir});
  const auto acc = read_table(dir + "/table_accuracy.csv");
  const auto hits = read_table(dir + "/table_hit_rate.csv");
  REQUIRE(acc.at("bp").size() == 3);
  const double bp = std::stod(acc.at("bp")[2]);
  for (const char* v : {"specbp@0.1", "specbp@0.175", "specbp@0.25"}) {
    INFO(v << ": accuracy after 3 epochs " << acc.at(v)[2] << "%, bp " << bp << "%");
    CHECK(std::abs(std::stod(acc.at(v)[2]) - bp) <= 2.0);
    for (const std::string& h : hits.at(v)) {  // reported for every epoch
      REQUIRE_FALSE(h.empty());
      CHECK(std::stod(h) >= 0.0);
      CHECK(std::stod(h) <= 1.0);
    }
  }
  CHECK(hits.at("bp")[0].empty());
  // Threshold 0.25 never misses (the distance is at most 0.2) ...
  for (const std::string& h : hits.at("specbp@0.25")) CHECK(std::stod(h) == 1.0);
  const json s = json::parse(read_file(dir + "/specbp@0.25/stats.json"));
  CHECK(s["technique_stats"]["misses"].get<std::int64_t>() == 0);
  CHECK(s["technique_stats"]["max_distance"].get<double>() <= 0.2);
  CHECK(s["technique_stats"]["cold"].get<std::int64_t>() == 10);  // one per label, ever
  // ... and a lower threshold keeps fewer speculative gradients.
  CHECK(std::stod(hits.at("specbp@0.1")[0]) < std::stod(hits.at("specbp@0.175")[0]));
}

TEST_CASE("A forced miss (threshold 0) trains like bp-sample and pays for the wasted work",
          "[e2e][specbp]") {
  require_dataset("mnist");
  const std::string dir = fresh_dir("specbp-forced-miss");
  const std::vector<std::string> common{"--set", "dataset.train_limit=600", "--set",
                                        "dataset.test_limit=500"};
  auto run = [&](const std::string& technique, const std::string& out) {
    std::vector<std::string> args{"run",           kQuickstart, "--out",
                                  dir + "/" + out, "--set",     "technique=" + technique};
    args.insert(args.end(), common.begin(), common.end());
    run_ok(args);
    return json::parse(read_file(dir + "/" + out + "/stats.json"));
  };
  const json sample = run("bp-sample", "sample");
  const json miss = run("specbp@0", "miss");
  // Every comparison misses, so every sample runs its normal backward pass: the numerics
  // are exactly bp-sample's.
  CHECK(miss["technique_stats"]["hits"].get<std::int64_t>() == 0);
  CHECK(miss["technique_stats"]["misses"].get<std::int64_t>() == 600 - 10);
  CHECK(miss["epochs"][0]["train"] == sample["epochs"][0]["train"]);
  CHECK(miss["epochs"][0]["test"] == sample["epochs"][0]["test"]);
  // The speculative passes still ran and are priced: the discarded work is the whole
  // second unit's work, and the run costs at least that much more energy.
  const double wasted = miss["technique_stats"]["discarded"]["energy"]["total"].get<double>();
  const double spec_unit = miss["technique_stats"]["second_unit"]["energy"]["total"].get<double>();
  CHECK(wasted > 0);
  CHECK(wasted == Approx(spec_unit));
  const double e_miss = miss["totals"]["train"]["energy"]["total"].get<double>();
  const double e_sample = sample["totals"]["train"]["energy"]["total"].get<double>();
  CHECK(e_miss >= e_sample + 0.99 * wasted);
  CHECK(miss["technique_stats"]["discarded"]["ops"].get<std::int64_t>() > 0);
}

TEST_CASE("Speculation overlaps only on its own unit, a smaller unit is no faster",
          "[e2e][specbp]") {
  require_dataset("mnist");
  const std::string dir = fresh_dir("specbp-units");
  auto cycles = [&](const std::vector<std::string>& sets, const std::string& out) {
    std::vector<std::string> args{"run",   kQuickstart,
                                  "--out", dir + "/" + out,
                                  "--set", "dataset.train_limit=450",
                                  "--set", "dataset.test_limit=100"};
    for (const auto& s : sets) args.insert(args.end(), {"--set", s});
    run_ok(args);
    const json s = json::parse(read_file(dir + "/" + out + "/stats.json"));
    return s["totals"]["train"]["elapsed_cycles"].get<std::int64_t>();
  };
  const std::int64_t sample = cycles({"technique=bp-sample"}, "sample");
  const std::int64_t own = cycles({"technique=specbp@0.25"}, "own");
  const std::int64_t shared =
      cycles({"technique={kind: specbp, threshold: 0.25, unit: {array: shared}}"}, "shared");
  const std::int64_t small =
      cycles({"technique={kind: specbp, threshold: 0.25, unit: {rows: 4, cols: 4}}"}, "small");
  INFO("bp-sample " << sample << ", own unit " << own << ", shared array " << shared
                    << ", 4x4 unit " << small);
  CHECK(own < sample);  // overlapping backward with forward pays off
  CHECK(shared > own);  // on the main array nothing overlaps
  CHECK(small >= own);  // a smaller second unit cannot be faster
  // The per-label store is reported: 10 slots of one forward pass (784+784+16+16+16+16+10+10
  // activations) of 2-byte words.
  const json s = json::parse(read_file(dir + "/own/stats.json"));
  CHECK(s["technique_stats"]["storage_bytes"].get<std::int64_t>() ==
        10 * (784 + 784 + 16 + 16 + 16 + 16 + 10 + 10) * 2);
}

TEST_CASE("The two units contend for the buffer port as well as for DRAM", "[e2e][specbp]") {
  require_dataset("mnist");
  const std::string dir = fresh_dir("specbp-port");
  auto run = [&](const std::string& out, const std::string& port) {
    run_ok({"run", kQuickstart, "--out", dir + "/" + out, "--set", "technique=specbp@0.25", "--set",
            "dataset.train_limit=300", "--set", "dataset.test_limit=100", "--set",
            "accelerator.buffer.port_words_per_cycle=" + port});
    return json::parse(read_file(dir + "/" + out + "/stats.json"));
  };
  const json free = run("unlimited", "0");
  const json tight = run("tight", "4");
  CHECK(free["units"]["buffer_port"]["contention_cycles"].get<std::int64_t>() == 0);
  CHECK(tight["units"]["buffer_port"]["contention_cycles"].get<std::int64_t>() > 0);
  CHECK(tight["totals"]["train"]["elapsed_cycles"].get<std::int64_t>() >
        free["totals"]["train"]["elapsed_cycles"].get<std::int64_t>());
  // Timing never changes numerics.
  CHECK(tight["epochs"][0]["test"] == free["epochs"][0]["test"]);
}

TEST_CASE("Speculative backprop trains a CNN too: LeNet-5 within 2 points of bp", "[e2e][specbp]") {
  // One full epoch: LeNet-5 needs a few hundred steps to leave its initial plateau (where
  // every output is near uniform and every speculation hits).
  require_dataset("mnist");
  const std::string dir = fresh_dir("specbp-lenet");
  const std::string exp =
      std::string(TRAINSIM_SOURCE_DIR) + "/configs/experiments/lenet5_mnist.yaml";
  // LeNet-5's per-label store (315,920 bytes) does not fit the 108 KiB buffer: in DRAM.
  for (const char* t : {"bp", "specbp@0.175"})
    run_ok({"run", exp, "--out", dir + "/" + t, "--set",
            std::string("technique={kind: specbp, store: dram}"), "--set",
            std::string("technique=") + t, "--set", "training.epochs=1"});
  const json bp = json::parse(read_file(dir + "/bp/stats.json"));
  const json sp = json::parse(read_file(dir + "/specbp@0.175/stats.json"));
  const auto& t = sp["technique_stats"];
  CHECK(t["hits"].get<std::int64_t>() + t["misses"].get<std::int64_t>() +
            t["cold"].get<std::int64_t>() ==
        8000);
  CHECK(t["misses"].get<std::int64_t>() > 0);
  const double a_bp = bp["epochs"][0]["test"]["accuracy"].get<double>();
  const double a_sp = sp["epochs"][0]["test"]["accuracy"].get<double>();
  INFO("LeNet-5 after 1 epoch: bp " << a_bp << ", specbp@0.175 " << a_sp);
  CHECK(std::abs(a_bp - a_sp) <= 0.02);
}
