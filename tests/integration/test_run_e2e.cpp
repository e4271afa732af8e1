// `trainsim run` through the real binary: timing never changes numerics, a run's cycles are
// the sum of its ops' cycles as `trainsim layer` reports them, op counts are the analytic
// ones, outputs are reproducible, and both fidelities give the same cycles.
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

const std::string kExperiments = std::string(TRAINSIM_SOURCE_DIR) + "/configs/experiments/";

void run_ok(const std::vector<std::string>& args) {
  const CliResult r = run_trainsim(args);
  INFO("stdout: " << r.out << "\nstderr: " << r.err);
  REQUIRE(r.exit_code == 0);
}

}  // namespace

TEST_CASE("trainsim run trains exactly as trainsim train does", "[e2e][run]") {
  require_dataset("mnist");
  const std::string dir = fresh_dir("run-vs-train");
  const std::vector<std::string> extra{"--set", "training.epochs=2", "--set",
                                       "dataset.train_limit=2000"};
  std::vector<std::string> train{"train", kExperiments + "quickstart.yaml", "--out", dir + "/t"};
  std::vector<std::string> run{"run", kExperiments + "quickstart.yaml", "--out", dir + "/r"};
  train.insert(train.end(), extra.begin(), extra.end());
  run.insert(run.end(), extra.begin(), extra.end());
  run_ok(train);
  run_ok(run);
  check_epochs_schema(read_file(dir + "/t/epochs.csv"));  // kind train
  check_epochs_schema(read_file(dir + "/r/epochs.csv"));  // kind run
  const auto t = csv_rows(read_file(dir + "/t/epochs.csv"));
  const auto r = csv_rows(read_file(dir + "/r/epochs.csv"));
  REQUIRE(t.size() == 2);
  REQUIRE(r.size() == 2);
  for (std::size_t e = 0; e < 2; ++e)
    for (const char* col : {"train_loss", "train_accuracy", "test_loss", "test_accuracy"})
      CHECK(t[e].at(col) == r[e].at(col));
}

TEST_CASE("A run's cycles are the sum of its ops' cycles as trainsim layer reports them",
          "[e2e][run]") {
  require_dataset("mnist");
  const std::string dir = fresh_dir("run-sum");
  // 10 batches of 15, evaluation on 100 samples (one batch). Without inter-op residency
  // every op is costed as it is on its own.
  run_ok({"run", kExperiments + "quickstart.yaml", "--out", dir + "/r", "--set",
          "dataset.train_limit=150", "--set", "dataset.test_limit=100", "--set",
          "residency=false"});
  const auto layers = csv_rows(read_file(dir + "/r/layers.csv"));
  const json stats = json::parse(read_file(dir + "/r/stats.json"));
  std::int64_t sum_train = 0;
  // The seed MLP's GEMMs (batch 15): M, N, K per layer and role, SCALE-Sim's convention.
  const std::map<std::string, std::string> gemm = {
      {"fc1/fw", "15,16,784"},      {"fc1/bwd-weight", "784,16,15"}, {"fc2/fw", "15,16,16"},
      {"fc2/bwd-data", "15,16,16"}, {"fc2/bwd-weight", "16,16,15"},  {"fc3/fw", "15,10,16"},
      {"fc3/bwd-data", "15,16,10"}, {"fc3/bwd-weight", "16,10,15"}};
  int checked = 0;
  for (const auto& row : layers) {
    if (row.at("phase") != "train") continue;
    const std::int64_t cycles = std::stoll(row.at("cycles"));
    const std::int64_t ops = std::stoll(row.at("ops"));
    sum_train += cycles;
    const auto it = gemm.find(row.at("name") + "/" + row.at("role"));
    if (it == gemm.end()) continue;
    const CliResult r = run_trainsim({"layer", "--accel", "adagp_ws180", "--dataflow", "ws",
                                      "--gemm", it->second, "--role", row.at("role"), "--json"});
    REQUIRE(r.exit_code == 0);
    const json op = json::parse(r.out);
    INFO(it->first);
    CHECK(ops == 10);
    CHECK(cycles == ops * op["stats"]["cycles"].get<std::int64_t>());
    ++checked;
  }
  CHECK(checked == static_cast<int>(gemm.size()));
  CHECK(sum_train == stats["totals"]["train"]["stats"]["cycles"].get<std::int64_t>());
  const auto epochs = csv_rows(read_file(dir + "/r/epochs.csv"));
  CHECK(std::stoll(epochs.at(0).at("cycles")) == sum_train);
  // Ops run one after another: simulated time is training plus evaluation.
  CHECK(stats["simulated_cycles"].get<std::int64_t>() ==
        sum_train + stats["totals"]["eval"]["stats"]["cycles"].get<std::int64_t>());
}

TEST_CASE("Residency keeps tensors on chip: less DRAM, the same training, counted", "[e2e][run]") {
  require_dataset("mnist");
  const std::string dir = fresh_dir("run-residency");
  const std::vector<std::string> small = {"--set", "dataset.train_limit=150", "--set",
                                          "dataset.test_limit=100"};
  auto run = [&](const std::string& name, const std::string& residency) {
    std::vector<std::string> args = {"run",   kExperiments + "quickstart.yaml",
                                     "--out", dir + "/" + name,
                                     "--set", "residency=" + residency};
    args.insert(args.end(), small.begin(), small.end());
    run_ok(args);
    return json::parse(read_file(dir + "/" + name + "/stats.json"));
  };
  const json on = run("on", "true"), off = run("off", "false");
  const json& a = on["totals"]["train"]["stats"];
  const json& b = off["totals"]["train"]["stats"];
  // The same ops on the same array: the memory side changes, and with it, slightly, the
  // tilings of the ops that hold a carried tensor beside their own tiles.
  CHECK(a["macs"] == b["macs"]);
  CHECK(a["compute_cycles"].get<double>() ==
        Approx(b["compute_cycles"].get<double>()).epsilon(0.02));
  CHECK(a["dram_bytes"].get<std::int64_t>() < b["dram_bytes"].get<std::int64_t>());
  CHECK(b["onchip_read_bytes"] == 0);
  CHECK(b["skipped_write_bytes"] == 0);
  CHECK(a["onchip_read_bytes"].get<std::int64_t>() > 0);
  CHECK(a["skipped_write_bytes"].get<std::int64_t>() > 0);
  // Whatever stayed on chip is DRAM traffic the run without residency had. The carried
  // tensors also change the tilings of the ops that hold them beside their own tiles, and the
  // search minimises time, not traffic, so that can move traffic either way; little of it.
  CHECK(static_cast<double>(b["dram_bytes"].get<std::int64_t>() -
                            a["dram_bytes"].get<std::int64_t>()) <=
        1.05 * static_cast<double>(a["onchip_read_bytes"].get<std::int64_t>() +
                                   a["skipped_write_bytes"].get<std::int64_t>()));
  CHECK(on["epochs"][0]["test"] == off["epochs"][0]["test"]);
  // The planner puts time first: keeping tensors on chip never makes training slower. With
  // DRAM traffic first, per-sample (batch-1) ops were tiled into latency-bound transfers and
  // ran several times slower than without residency.
  CHECK(a["cycles"].get<std::int64_t>() <= b["cycles"].get<std::int64_t>());
  auto per_sample = [&](const std::string& name, const std::string& residency) {
    std::vector<std::string> args = {
        "run",   kExperiments + "quickstart.yaml", "--out", dir + "/" + name,
        "--set", "residency=" + residency,         "--set", "technique=bp-sample"};
    args.insert(args.end(), small.begin(), small.end());
    run_ok(args);
    return json::parse(read_file(dir + "/" + name + "/stats.json"))["totals"]["train"]["stats"];
  };
  const json sample_on = per_sample("sample-on", "true"),
             sample_off = per_sample("sample-off", "false");
  CHECK(sample_on["cycles"].get<std::int64_t>() <= sample_off["cycles"].get<std::int64_t>());
  CHECK(sample_on["dram_bytes"].get<std::int64_t>() <=
        sample_off["dram_bytes"].get<std::int64_t>());
}

TEST_CASE("Op counts per epoch are batches x ops per batch", "[e2e][run]") {
  require_dataset("mnist");
  const std::string dir = fresh_dir("run-counts");
  run_ok({"run", kExperiments + "quickstart.yaml", "--out", dir + "/mlp", "--set",
          "dataset.train_limit=300", "--set", "dataset.test_limit=1000", "--set",
          "training.epochs=2"});
  json s = json::parse(read_file(dir + "/mlp/stats.json"));
  // seed_mlp, per training batch: forward of fc1, lrelu, fc2, lrelu, fc3, softmax (flatten
  // moves no data) = 6; loss gradient 1; backward: bwd-weight of fc3, fc2, fc1 (3),
  // bwd-data of fc3, fc2 (fc1's input needs no gradient) (2), activation derivatives of the
  // two lrelus (2) = 7; updates of fc1, fc2, fc3 = 3. Total 17. Evaluation: 6 per batch.
  for (const auto& e : s["epochs"]) {
    CHECK(e["sim"]["train"]["ops"].get<std::int64_t>() == 20 * 17);
    CHECK(e["sim"]["eval"]["ops"].get<std::int64_t>() == 2 * 6);  // eval batches of 500
  }
  run_ok({"run", kExperiments + "lenet5_mnist.yaml", "--out", dir + "/lenet", "--set",
          "dataset.train_limit=64", "--set", "dataset.test_limit=500", "--set",
          "training.epochs=1"});
  s = json::parse(read_file(dir + "/lenet/stats.json"));
  // lenet5 (13 layers), per batch: forward of every layer but flatten = 12; loss gradient
  // 1; bwd-weight of conv1, conv2, fc1, fc2, fc3 = 5; bwd-data / derivatives from fc3 down
  // to conv1's relu (fc3, relu, fc2, relu, fc1, pool, relu, conv2, pool, relu; flatten moves
  // nothing and conv1's input needs no gradient) = 10; updates 5. Total 33.
  CHECK(s["epochs"][0]["sim"]["train"]["ops"].get<std::int64_t>() == 2 * 33);
  CHECK(s["epochs"][0]["sim"]["eval"]["ops"].get<std::int64_t>() == 1 * 12);
}

TEST_CASE("The same run twice gives byte-identical stats.json, epochs.csv and layers.csv",
          "[e2e][run][determinism]") {
  require_dataset("mnist");
  const std::string dir = fresh_dir("run-determinism");
  for (const char* d : {"a", "b"})
    run_ok({"run", kExperiments + "lenet5_mnist.yaml", "--out", dir + "/" + d, "--set",
            "dataset.train_limit=300", "--set", "dataset.test_limit=300", "--set",
            "training.epochs=1"});
  for (const char* f : {"stats.json", "epochs.csv", "layers.csv"}) {
    INFO(f);
    CHECK(read_file(dir + "/a/" + f) == read_file(dir + "/b/" + f));
  }
}

TEST_CASE("Cycle fidelity gives exactly the cycles of fast fidelity", "[e2e][run][fidelity]") {
  require_dataset("mnist");
  const std::string dir = fresh_dir("run-fidelity");
  for (const char* f : {"fast", "cycle"})
    run_ok({"run", kExperiments + "quickstart.yaml", "--out", dir + "/" + f, "--set",
            "dataset.train_limit=300", "--set", "dataset.test_limit=300", "--set",
            std::string("fidelity=") + f});
  const auto fast = csv_rows(read_file(dir + "/fast/layers.csv"));
  const auto cycle = csv_rows(read_file(dir + "/cycle/layers.csv"));
  REQUIRE(fast.size() == cycle.size());
  for (std::size_t i = 0; i < fast.size(); ++i) {
    INFO(fast[i].at("phase") << " " << fast[i].at("name") << " " << fast[i].at("role"));
    for (const char* col :
         {"ops", "macs", "cycles", "compute_cycles", "stall_cycles", "rf_reads", "rf_writes",
          "noc_transfers", "buffer_reads", "buffer_writes", "dram_bytes", "energy_pj"})
      CHECK(fast[i].at(col) == cycle[i].at(col));
  }
  CHECK(read_file(dir + "/fast/epochs.csv") == read_file(dir + "/cycle/epochs.csv"));
}

TEST_CASE("trainsim compare runs every dataflow with the same seed", "[e2e][compare]") {
  require_dataset("mnist");
  const std::string dir = fresh_dir("compare") + "/cmp";
  run_ok({"compare", kExperiments + "lenet5_mnist.yaml", "--dataflows", "ws,os,is,rs", "--out", dir,
          "--set", "dataset.train_limit=200", "--set", "dataset.test_limit=200", "--set",
          "training.epochs=1"});
  const auto rows = csv_rows(read_file(dir + "/compare.csv"));
  REQUIRE(rows.size() == 4);
  CHECK(rows[0].at("variant") == "ws");
  CHECK(rows[0].at("cycles_rel") == "1.000000");
  for (const auto& r : rows) {
    INFO(r.at("variant"));
    CHECK(std::stoll(r.at("cycles")) > 0);
    CHECK(std::stod(r.at("energy_pj")) > 0);
    // Timing never changes numerics: every dataflow trains to the same accuracy.
    CHECK(r.at("test_accuracy") == rows[0].at("test_accuracy"));
    CHECK(exists(dir + "/" + r.at("variant") + "/layers.csv"));
  }
  CHECK_FALSE(exists(dir + ".partial"));
}
