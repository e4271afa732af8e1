// Training on a system of devices through the real binary: one device with one micro-batch
// costs exactly the single-device run; LeNet-5 on Fashion-MNIST over four devices (GPipe,
// 1F1B) reaches exactly the single-device accuracy with per-device reports and a timeline
// that loads as JSON; bad systems and pipelines fail with one line and no output.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include <set>

#include "tests/integration/cli_runner.h"

using namespace trainsim;
using namespace trainsim::test;

namespace {

// LeNet-5 on the first 2,000 / 500 Fashion-MNIST samples, batch 64 (31 full batches and a
// partial one of 16), one epoch.
std::string lenet_body(const std::string& extra) {
  return "name: pipe\nnetwork: lenet5\n"
         "dataset: {name: fashion-mnist, train_limit: 2000, test_limit: 500}\n"
         "training: {epochs: 1, batch_size: 64, seed: 3, threads: 1,\n"
         "           optimizer: {kind: sgd, lr: 0.02, momentum: 0.9, reduction: mean}}\n"
         "accelerator: adagp_ws180\n" +
         extra;
}

}  // namespace

TEST_CASE("One device and one micro-batch cost exactly the single-device run", "[pipeline]") {
  require_dataset("fashion-mnist");
  const std::string dir = fresh_dir("pipeline-one-device");
  const std::string exp = write_experiment(
      dir, lenet_body("numerics: none\nsystem: {devices: 1}\npipeline: {micro_batches: 1}\n"));
  const auto piped = run_trainsim({"run", exp, "--out", dir + "/piped", "--quiet"});
  INFO(piped.err);
  REQUIRE(piped.exit_code == 0);
  const auto single =
      run_trainsim({"run", exp, "--out", dir + "/single", "--quiet", "--set", "system=none"});
  INFO(single.err);
  REQUIRE(single.exit_code == 0);
  const auto p = nlohmann::json::parse(read_file(dir + "/piped/stats.json"));
  const auto s = nlohmann::json::parse(read_file(dir + "/single/stats.json"));
  // One device runs every task back to back, the single-device session's ops in the same
  // order: the same cycles (1 GHz: seconds = cycles / 1e9), DRAM bytes and energy.
  const double single_seconds = s["totals"]["train"]["elapsed_cycles"].get<double>() / 1e9;
  CHECK(p["totals"]["train_seconds"].get<double>() == Approx(single_seconds).epsilon(1e-12));
  CHECK(p["devices"][0]["dram_bytes"].get<double>() ==
        s["totals"]["train"]["stats"]["dram_bytes"].get<double>());
  CHECK(p["totals"]["device_energy"].get<double>() ==
        Approx(s["totals"]["train"]["energy"]["total"].get<double>()).epsilon(1e-9));
  CHECK(p["totals"]["idle_fraction"].get<double>() == 0);
  CHECK(p["totals"]["link_bytes"].get<double>() == 0);
}

TEST_CASE("LeNet-5 on 4 devices: single-device accuracy, per-device reports, a timeline",
          "[pipeline]") {
  require_dataset("fashion-mnist");
  const std::string dir = fresh_dir("pipeline-lenet");
  const std::string exp =
      write_experiment(dir, lenet_body("system: four_ws180_chain\npipeline: {micro_batches: 4}\n"));
  const auto single =
      run_trainsim({"run", exp, "--out", dir + "/single", "--quiet", "--set", "system=none"});
  INFO(single.err);
  REQUIRE(single.exit_code == 0);
  const double accuracy =
      epochs_csv_value(read_file(dir + "/single/epochs.csv"), 1, "test_accuracy");
  for (const std::string schedule : {"gpipe", "1f1b"}) {
    INFO(schedule);
    const std::string out = dir + "/" + schedule;
    const auto r = run_trainsim(
        {"run", exp, "--out", out, "--quiet", "--set", "pipeline.schedule=" + schedule});
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    check_epochs_schema(read_file(out + "/epochs.csv"));  // kind system
    CHECK(epochs_csv_value(read_file(out + "/epochs.csv"), 1, "test_accuracy") == accuracy);
    const auto devices = csv_rows(read_file(out + "/devices.csv"));
    REQUIRE(devices.size() == 4);
    for (const auto& d : devices) {
      CHECK(std::stod(d.at("busy_seconds")) > 0);
      CHECK(std::stod(d.at("idle_fraction")) >= 0);
      CHECK(std::stod(d.at("idle_fraction")) < 1);
    }
    // 1F1B holds at most p - s micro-batches on stage s; GPipe all four on every stage.
    for (int s = 0; s < 4; ++s)
      CHECK(std::stoi(devices[static_cast<std::size_t>(s)].at("peak_inflight_micro_batches")) ==
            (schedule == "gpipe" ? 4 : 4 - s));
    CHECK(csv_rows(read_file(out + "/links.csv")).size() == 6);  // a chain of 4, both ways
    const auto trace = nlohmann::json::parse(read_file(out + "/timeline.json"));
    std::set<int> tracks, named;
    for (const auto& e : trace["traceEvents"]) {
      if (e["ph"] == "M") named.insert(e["tid"].get<int>());
      if (e["ph"] == "X" && e["cat"] != "transfer") tracks.insert(e["tid"].get<int>());
    }
    CHECK(tracks == std::set<int>{0, 1, 2, 3});  // one track per device
    for (int t : tracks) CHECK(named.count(t) == 1);
  }
  const auto gpipe_stats = nlohmann::json::parse(read_file(dir + "/gpipe/stats.json"));
  for (const auto& d : gpipe_stats["devices"]) CHECK(d["busy_seconds"].get<double>() > 0);
  // The schedules time the same work: same energy, and (uniform ops) the same order of time.
  const auto g = nlohmann::json::parse(read_file(dir + "/gpipe/stats.json"));
  const auto o = nlohmann::json::parse(read_file(dir + "/1f1b/stats.json"));
  CHECK(g["totals"]["device_energy"].get<double>() ==
        Approx(o["totals"]["device_energy"].get<double>()).epsilon(1e-12));
}

TEST_CASE("Devices of different kinds each cost their stages on their own accelerator",
          "[pipeline]") {
  require_dataset("fashion-mnist");
  const std::string dir = fresh_dir("pipeline-mixed");
  const std::string pipeline =
      "pipeline: {schedule: 1f1b, stages: [[0, 0], [1, 2], [3, 3], [4, 12]]}\n";
  const std::string same = write_experiment(
      dir, lenet_body("numerics: none\nsystem: {devices: 4, topology: ring}\n" + pipeline));
  auto r = run_trainsim({"run", same, "--out", dir + "/same", "--quiet"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const std::string mixed =
      write_experiment(dir, lenet_body("numerics: none\nsystem:\n  devices:\n"
                                       "    - {accelerator: adagp_ws180, count: 2}\n"
                                       "    - {accelerator: small_8x8, dataflow: os}\n"
                                       "    - {accelerator: adagp_ws180}\n"
                                       "  topology: ring\n" +
                                       pipeline));
  r = run_trainsim({"run", mixed, "--out", dir + "/mixed", "--quiet"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const auto a = csv_rows(read_file(dir + "/same/devices.csv"));
  const auto b = csv_rows(read_file(dir + "/mixed/devices.csv"));
  REQUIRE(a.size() == 4);
  REQUIRE(b.size() == 4);
  CHECK(b[2].at("accelerator") == "small_8x8");
  CHECK(b[2].at("dataflow") == "os");
  // conv2's stage on 64 PEs instead of 180 takes longer (1.45x when written);
  // the other devices' work is the same.
  CHECK(std::stod(b[2].at("busy_seconds")) > 1.3 * std::stod(a[2].at("busy_seconds")));
  for (int d : {0, 1, 3})
    CHECK(b[static_cast<std::size_t>(d)].at("busy_seconds") ==
          a[static_cast<std::size_t>(d)].at("busy_seconds"));
}

TEST_CASE("ADA-GP's pseudo-label ablation backpropagates its Phase GP batches on a pipeline too",
          "[pipeline]") {
  require_dataset("fashion-mnist");
  const std::string dir = fresh_dir("pipeline-pseudo");
  const std::string exp =
      write_experiment(dir, lenet_body("numerics: none\nsystem: four_ws180_chain\n"
                                       "technique: {kind: adagp-efficient, warmup_epochs: 1}\n"));
  auto seconds = [&](const std::string& phase_gp) {
    const auto r = run_trainsim({"run", exp, "--out", dir + "/" + phase_gp, "--quiet", "--set",
                                 "training.epochs=2", "--set", "technique.phase_gp=" + phase_gp});
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    return epochs_csv_value(read_file(dir + "/" + phase_gp + "/epochs.csv"), 2, "seconds");
  };
  // zero: Phase GP batches run forward (and updates); pseudo: forward and backward.
  CHECK(seconds("pseudo") > 1.3 * seconds("zero"));
}

TEST_CASE("Bad systems and pipelines: one line, exit 2, no output", "[pipeline][errors]") {
  struct Case {
    std::string extra;
    std::vector<std::string> mentions;
  };
  const std::vector<Case> cases = {
      {"system: {devices: 14}\n", {"14 stages", "13 layers"}},
      {"system: {devices: 2}\npipeline: {stages: [[0, 6], [5, 12]]}\n", {"overlaps"}},
      {"system: {devices: 2}\npipeline: {stages: [[0, 5], [7, 12]]}\n", {"layers 6..6"}},
      {"system: {devices: 2}\npipeline: {stages: [[0, 5], [6, 11]]}\n", {"no stage"}},
      {"system: {devices: 2}\npipeline: {micro_batches: 128}\n", {"larger than", "batch_size"}},
      {"system: {devices: 2}\npipeline: {micro_batches: 3}\n", {"must divide"}},
      {"system: {devices: 2}\npipeline: {schedule: pipedream}\n", {"unknown schedule 'pipedream'"}},
      {"system: {devices: 3}\npipeline: {schedule: chimera}\n", {"even number of devices"}},
      {"system: {devices: 2, topology: custom, links: [{between: [0, 2]}]}\n",
       {"exp.yaml:", "device 2 does not exist"}},
      {"system: {devices: 3, topology: custom, links: [{between: [0, 1]}]}\n", {"not connected"}},
      {"system: {devices: 2, topology: torus}\n", {"unknown topology 'torus'"}},
      {"system: {devices: 2, link: {bandwidth_gbps: 0}}\n", {"bandwidth_gbps"}},
      {"system: four_gpus\n", {"unknown system 'four_gpus'"}},
      {"system: {devices: 2}\ntechnique: specbp\n", {"depends on the data", "2 devices"}},
      // Schedules as data (schedule: custom): what cannot be, refused before any run.
      {"system: {devices: 2}\npipeline: {schedule: custom}\n", {"needs pipeline.orders"}},
      {"system: {devices: 2}\npipeline: {orders: [[F0, B0], [F0, B0]], micro_batches: 1}\n",
       {"pipeline.orders", "schedule: custom (schedule is gpipe)"}},
      {"system: {devices: 2}\npipeline: {schedule: custom, micro_batches: 1, orders: [[F0, B0]]}\n",
       {"1 lists", "one per device expected (2)"}},
      {"system: {devices: 2}\npipeline: {schedule: custom, micro_batches: 1,\n"
       "  orders: [[F0, B0], [F0, X0]]}\n",
       {"pipeline.orders[1][1]", "'X0' is no task"}},
      {"system: {devices: 2}\npipeline: {schedule: custom, micro_batches: 2,\n"
       "  orders: [[F0, F1, B0, B1], [F0, B0, F1, B1, F1]]}\n",
       {"pipeline.orders[1][4]", "listed twice"}},
      {"system: {devices: 2}\npipeline: {schedule: custom, micro_batches: 2,\n"
       "  orders: [[F0, F1, B0, B1], [F0, B0, F1]]}\n",
       {"device 1 never runs B1"}},
      {"system: {devices: 2}\npipeline: {schedule: custom, micro_batches: 2,\n"
       "  orders: [[F0, F1, B0, B1], [F0, B0, F2, B1]]}\n",
       {"names micro-batch 2", "a batch has 2"}},
      // Device 0 waits for B0, which device 1 runs only after F1, which needs device 0's F1.
      {"system: {devices: 2}\npipeline: {schedule: custom, micro_batches: 2,\n"
       "  orders: [[F0, B0, F1, B1], [F0, F1, B0, B1]]}\n",
       {"pipeline.orders", "cannot finish", "dev0", "dev1"}},
  };
  for (std::size_t i = 0; i < cases.size(); ++i) {
    INFO(cases[i].extra);
    const std::string sub = fresh_dir("pipeline-errors-" + std::to_string(i));
    const std::string exp = write_experiment(sub, lenet_body("numerics: none\n" + cases[i].extra));
    require_clean_failure(run_trainsim({"run", exp, "--out", sub + "/out"}), sub + "/out",
                          cases[i].mentions);
  }
}

TEST_CASE("Figure 20 cells stay where the docs have them", "[pipeline][golden]") {
  // ADA-GP-MAX over bp on four adagp_ws180 (ideal links, 4 micro-batches, 90 epochs, shape
  // only), as tools/pipeline_zoo.py runs every cell; the values are that tool's per-model
  // table of 2026-11-27, whose means docs/pipelines.md and docs/validation.md publish. A move
  // here is a move of the published table: re-run the tool and say why in the docs.
  struct Cell {
    const char* model;
    const char* schedule;
    double speedup;
  };
  const Cell cells[] = {{"resnet50", "gpipe", 1.6163},
                        {"resnet50", "chimera", 1.5858},
                        {"densenet121", "chimera", 1.6219}};
  const std::string zoo = std::string(TRAINSIM_SOURCE_DIR) + "/configs/experiments/adagp_zoo.yaml";
  for (const Cell& c : cells) {
    INFO(c.model << " " << c.schedule);
    const std::string out = fresh_dir(std::string("figure20-") + c.model + "-" + c.schedule);
    const auto r = run_trainsim(
        {"compare", zoo, "--techniques", "bp,adagp-max", "--quiet", "--out", out + "/cmp", "--set",
         std::string("network=") + c.model + "_imagenet", "--set", "dataset.name=imagenet", "--set",
         "system=four_ws180_ideal", "--set", std::string("pipeline.schedule=") + c.schedule,
         "--set", "pipeline.micro_batches=4"});
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    const auto rows = csv_rows(read_file(out + "/cmp/compare.csv"));
    REQUIRE(rows.size() == 2);
    CHECK(std::stod(rows[1].at("speedup")) == Approx(c.speedup).margin(5e-4));
  }
}
