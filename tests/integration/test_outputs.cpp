// Outputs a long run can rely on, through the real binary: a run stopped after some epochs
// keeps them, marked incomplete, and --resume continues it to results byte-identical to an
// uninterrupted run; CSV cells survive commas; energy columns carry the table's unit;
// compare names final paths only.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <utility>
#include <vector>

#include "sim/core/csv.h"
#include "sim/report/stats_header.h"
#include "tests/integration/cli_runner.h"

using namespace trainsim;
using namespace trainsim::test;
using nlohmann::json;

namespace {

const std::string kExperiments = std::string(TRAINSIM_SOURCE_DIR) + "/configs/experiments/";
const std::string kQuickstart = kExperiments + "quickstart.yaml";
const char* kInterruptAfter1 = "TRAINSIM_TEST_INTERRUPT_AFTER_EPOCH=1";

std::vector<std::string> with(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

void run_ok(const std::vector<std::string>& args) {
  const CliResult r = run_trainsim(args);
  INFO("stdout: " << r.out << "\nstderr: " << r.err);
  REQUIRE(r.exit_code == 0);
}

// Stops `args` (which write to `dir`) after epoch 1 as Ctrl-C would, and checks what is left.
void interrupt_after_epoch_1(const std::vector<std::string>& args, const std::string& dir,
                             int epochs) {
  const CliResult r = run_trainsim(args, {kInterruptAfter1});
  INFO("stdout: " << r.out << "\nstderr: " << r.err);
  REQUIRE(r.exit_code == 130);
  CHECK(r.err.find("marked incomplete") != std::string::npos);
  CHECK(r.err.find("--resume " + dir) != std::string::npos);
  CHECK_FALSE(exists(dir + ".partial"));
  CHECK(read_file(dir + "/INCOMPLETE").find("1 of " + std::to_string(epochs)) != std::string::npos);
  CHECK(exists(dir + "/checkpoint.bin"));
  CHECK(csv_rows(read_file(dir + "/epochs.csv")).size() == 1);
  const json stats = json::parse(read_file(dir + "/stats.json"));
  CHECK(stats["status"] == "incomplete");
  CHECK(stats["epochs"].size() == 1);
}

void require_same_files(const std::string& a, const std::string& b,
                        const std::vector<std::string>& files) {
  for (const std::string& f : files) {
    INFO(f);
    REQUIRE(exists(a + "/" + f));
    CHECK(read_file(a + "/" + f) == read_file(b + "/" + f));
  }
}

}  // namespace

TEST_CASE("A run stopped after epoch 1 of 3 and resumed equals an uninterrupted run",
          "[outputs][resume]") {
  require_dataset("mnist");
  // Techniques with state of their own beside the model's: ADA-GP's predictor and per-layer
  // Adam optimizers; speculative backprop's per-label store and SGD momentum.
  std::vector<std::vector<std::string>> cases = {
      {"-s", "technique=adagp-max@1", "-s", "training.optimizer={kind: adam, lr: 0.001}"},
      {"-s", "technique=specbp@0.1", "-s", "training.optimizer.momentum=0.9"},
      // The oracle's random state and persistent directions, the diagnostics' memory of the
      // previous batch, the running mean and the last error direction.
      {"-s",
       "technique={kind: adagp-efficient, warmup_epochs: 1, schedule: [[2, 1, 0]], phase_gp: "
       "oracle, oracle: {cosine: 0.5, magnitude: 0.5, persistent: true}, diagnostics: true}",
       "-s", "training.optimizer.momentum=0.9"},
      {"-s", "technique={kind: adagp-low, warmup_epochs: 1, diagnostics: true}"}};
  // A network with state beside its parameters: batch normalization's running statistics
  // (the evaluation after each epoch reads them) and dropout's random stream; a residual add.
  const std::string net = fresh_dir("resume-net") + "/bn_dropout.yaml";
  write_file(net,
             "name: bn_dropout\ninput: [1, 28, 28]\nclasses: 10\nlayers:\n"
             "  - {type: conv2d, name: c1, filters: 4, kernel: 3, stride: 2, padding: 1}\n"
             "  - {type: batchnorm, name: bn}\n  - {type: relu, name: r}\n"
             "  - {type: conv2d, name: c2, filters: 4, kernel: 3, padding: 1}\n"
             "  - {type: add, name: sum, from: [c2, r]}\n"
             "  - {type: dropout, name: drop, rate: 0.3}\n  - {type: global_avgpool}\n"
             "  - {type: flatten}\n  - {type: dense, units: 10}\n  - {type: softmax}\n");
  // With a learning-rate step after epoch 1: the resumed epochs run at the stepped rate.
  cases.push_back({"-s", "network=" + net, "-s", "training.optimizer.momentum=0.9", "-s",
                   "training.optimizer.lr_steps=[1]"});
  // Speculative backprop's stored passes keep what those layers saved (their statistics and
  // masks) across the checkpoint.
  cases.push_back(
      {"-s", "network=" + net, "-s", "technique={kind: specbp, threshold: 0.1, store: dram}"});
  int k = 0;
  for (const auto& technique : cases) {
    INFO(technique[1]);
    const std::string dir = fresh_dir("resume-" + std::to_string(k++));
    const auto base = with({"run", kQuickstart, "-q", "-s", "training.epochs=3", "-s",
                            "dataset.train_limit=900", "-s", "dataset.test_limit=300"},
                           technique);
    run_ok(with(base, {"-o", dir + "/whole"}));
    interrupt_after_epoch_1(with(base, {"-o", dir + "/cut"}), dir + "/cut", 3);
    // Without --resume the directory is protected, and the error says how to continue.
    const CliResult again = run_trainsim(with(base, {"-o", dir + "/cut"}));
    CHECK(again.exit_code == 2);
    CHECK(again.err.find("--resume " + dir + "/cut") != std::string::npos);
    run_ok({"run", "--resume", dir + "/cut", "-q"});
    CHECK_FALSE(exists(dir + "/cut/INCOMPLETE"));
    CHECK_FALSE(exists(dir + "/cut/checkpoint.bin"));
    require_same_files(dir + "/whole", dir + "/cut",
                       {"epochs.csv", "stats.json", "layers.csv", "timeline.json"});
    if (exists(dir + "/whole/predictor.csv"))
      require_same_files(dir + "/whole", dir + "/cut", {"predictor.csv"});
    // A complete run has nothing to resume.
    const CliResult done = run_trainsim({"run", "--resume", dir + "/cut"});
    CHECK(done.exit_code == 2);
    CHECK(done.err.find("no incomplete run") != std::string::npos);
  }
}

TEST_CASE("trainsim train resumes too, a checkpoint resumes only its own run",
          "[outputs][resume]") {
  require_dataset("mnist");
  const std::string dir = fresh_dir("resume-train");
  const std::vector<std::string> base = {
      "train", kQuickstart, "-q", "-s", "training.epochs=2", "-s", "dataset.train_limit=600"};
  run_ok(with(base, {"-o", dir + "/whole"}));
  interrupt_after_epoch_1(with(base, {"-o", dir + "/cut"}), dir + "/cut", 2);
  // The wrong command, and an edited configuration, are refused; the run stays resumable.
  CliResult r = run_trainsim({"run", "--resume", dir + "/cut"});
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("resume it with trainsim train --resume") != std::string::npos);
  const std::string config = read_file(dir + "/cut/config.resolved.yaml");
  write_file(dir + "/cut/config.resolved.yaml", config + "# edited\n");
  r = run_trainsim({"train", "--resume", dir + "/cut"});
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("another configuration") != std::string::npos);
  CHECK(line_count(r.err) == 1);
  write_file(dir + "/cut/config.resolved.yaml", config);
  CHECK(run_trainsim({"train", "--resume", dir + "/cut", "-s", "training.epochs=5"}).exit_code ==
        2);
  run_ok({"train", "--resume", dir + "/cut"});
  require_same_files(dir + "/whole", dir + "/cut", {"epochs.csv", "stats.json"});
  CHECK(json::parse(read_file(dir + "/whole/stats.json"))["kind"] == "train");
}

TEST_CASE("A run stopped before its first epoch completes leaves nothing", "[outputs][resume]") {
  require_dataset("mnist");
  const std::string dir = fresh_dir("stop-early") + "/r";
  // Interrupted after epoch 1 of 1: that is the end, so the run completes.
  CliResult r = run_trainsim({"run", kQuickstart, "-q", "-o", dir, "-s", "dataset.train_limit=150"},
                             {kInterruptAfter1});
  CHECK(r.exit_code == 0);
  CHECK(json::parse(read_file(dir + "/stats.json"))["status"] == "complete");
  CHECK_FALSE(exists(dir + "/INCOMPLETE"));
}

TEST_CASE("A layer named `fc,1` round-trips through layers.csv and tools/plot", "[outputs][csv]") {
  require_dataset("mnist");
  const std::string dir = fresh_dir("csv-comma");
  std::string exp = read_file(kQuickstart);
  exp.replace(exp.find("network: seed_mlp"), 17,
              "network:\n  name: commas\n  layers:\n    - {type: flatten}\n"
              "    - {type: dense, name: \"fc,1\", units: 12}\n    - {type: relu, name: "
              "\"say \\\"hi\\\"\"}\n    - {type: dense, name: out, units: 10}\n"
              "    - {type: softmax}");
  write_file(dir + "/exp.yaml", exp);
  run_ok({"run", dir + "/exp.yaml", "-q", "-o", dir + "/r", "-s", "dataset.train_limit=150", "-s",
          "dataset.test_limit=100"});
  const auto table = parse_csv(read_file(dir + "/r/layers.csv"));
  REQUIRE(table.size() > 1);
  bool seen_comma = false, seen_quote = false;
  for (const auto& row : table) {
    CHECK(row.size() == table[0].size());
    seen_comma = seen_comma || row[2] == "fc,1";
    seen_quote = seen_quote || row[2] == "say \"hi\"";
  }
  CHECK(seen_comma);
  CHECK(seen_quote);
  // tools/plot reads the same file (Python's csv module) and draws the layers.
  const std::string plot = "python3 " + std::string(TRAINSIM_SOURCE_DIR) + "/tools/plot " + dir +
                           "/r > " + dir + "/plot.log 2>&1";
  INFO(read_file(dir + "/plot.log"));
  CHECK(std::system(plot.c_str()) == 0);
  CHECK(exists(dir + "/r/plots/layers_energy.png"));
}

TEST_CASE("Energy columns and stats.json carry the energy table's unit", "[outputs][units]") {
  require_dataset("mnist");
  const std::string dir = fresh_dir("units");
  const std::vector<std::string> small = {"-q", "-s", "dataset.train_limit=150", "-s",
                                          "dataset.test_limit=100"};
  run_ok(with({"run", kQuickstart, "-o", dir + "/pj"}, small));
  run_ok(
      with({"run", kQuickstart, "-o", dir + "/norm", "-s", "accelerator.energy=eyeriss_normalized"},
           small));
  const auto header = [&](const std::string& file) { return parse_csv(read_file(file)).at(0); };
  auto has = [](const std::vector<std::string>& h, const std::string& c) {
    return std::find(h.begin(), h.end(), c) != h.end();
  };
  const auto pj = header(dir + "/pj/epochs.csv"), norm = header(dir + "/norm/epochs.csv");
  // epochs.csv's common energy column says its unit in every row; the run's own extras carry
  // it in their names.
  CHECK(csv_rows(read_file(dir + "/pj/epochs.csv")).at(0).at("energy_unit") == "pJ");
  CHECK(csv_rows(read_file(dir + "/norm/epochs.csv")).at(0).at("energy_unit") == "normalized");
  CHECK(has(pj, "eval_energy_pj"));
  CHECK(has(norm, "eval_energy_norm"));
  CHECK_FALSE(has(norm, "eval_energy_pj"));
  CHECK(has(header(dir + "/norm/layers.csv"), "energy_norm"));
  const json stats = json::parse(read_file(dir + "/norm/stats.json"));
  CHECK(stats["energy_unit"] == "normalized");
  CHECK(stats["totals"]["train"]["energy"]["unit"] == "normalized");
  CHECK(json::parse(read_file(dir + "/pj/stats.json"))["energy_unit"] == "pJ");
  // Every stats.json opens with its run kind and layout version (sim/report/stats_header.h).
  CHECK(nlohmann::ordered_json::parse(read_file(dir + "/norm/stats.json")).begin().key() == "kind");
  CHECK(stats["kind"] == "run");
  CHECK(stats["schema_version"] == kStatsSchemaVersion);
  run_ok(with({"run", kQuickstart, "-o", dir + "/shape", "-s", "numerics=none"}, small));
  const json shape = json::parse(read_file(dir + "/shape/stats.json"));
  CHECK(shape["kind"] == "shape-only");
  CHECK(shape["schema_version"] == kStatsSchemaVersion);
  // Per-layer entries carry what applies to them: no elapsed time, no empty mapping.
  for (const auto& layer : stats["layers"]) {
    if (!layer.contains("train")) continue;  // no ops (flatten)
    for (auto it = layer["train"].begin(); it != layer["train"].end(); ++it) {
      INFO(layer["name"] << " " << it.key());
      CHECK_FALSE(it.value().contains("elapsed_cycles"));
      CHECK_FALSE(it.value()["stats"].contains("mapping"));
    }
  }
}

TEST_CASE("compare prints the final paths of its results", "[outputs][compare]") {
  require_dataset("mnist");
  const std::string dir = fresh_dir("compare-paths") + "/cmp";
  const CliResult r = run_trainsim({"compare", kQuickstart, "--dataflows", "ws,os", "-o", dir, "-s",
                                    "dataset.train_limit=150", "-s", "dataset.test_limit=100"});
  INFO("stdout: " << r.out << "\nstderr: " << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find(".partial") == std::string::npos);
  CHECK(r.err.find(".partial") == std::string::npos);
  CHECK(r.out.find("variant 2/2 os") != std::string::npos);
  CHECK(r.out.find("into " + dir + "/\n") != std::string::npos);
  // Not a terminal: one progress line per variant and epoch on stderr, no bar.
  CHECK(r.err.find("variant 1/2 ws: epoch 1/1 done") != std::string::npos);
  CHECK(r.err.find('\r') == std::string::npos);
  CHECK(exists(dir + "/os/stats.json"));
}

TEST_CASE(
    "Each unit is busy at most the whole run, and a technique's own array is a unit of its own",
    "[outputs][units]") {
  require_dataset("mnist");
  const std::string dir = fresh_dir("unit-busy");
  for (const char* technique : {"adagp-max", "specbp", "bp"}) {
    INFO(technique);
    const std::string out = dir + "/" + technique;
    const auto r =
        run_trainsim({"run", kQuickstart, "-o", out, "-s", std::string("technique=") + technique,
                      "-s", "dataset.train_limit=300", "-s", "dataset.test_limit=100"});
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    // The summary has a speculating technique's line only for one that speculates.
    CHECK((r.out.find("hits,") != std::string::npos) == (std::string(technique) == "specbp"));
    const json stats = json::parse(read_file(out + "/stats.json"));
    const json& units = stats["units"];
    const double cycles = stats["totals"]["train"]["elapsed_cycles"].get<double>() +
                          stats["totals"]["eval"]["elapsed_cycles"].get<double>();
    CHECK(units["pe_array"]["busy_fraction"].get<double>() <= 1.0);
    CHECK(units["vector_unit"]["busy_fraction"].get<double>() <= 1.0);
    // Every MAC ran on one array or the other.
    std::int64_t macs = units["pe_array"]["macs"].get<std::int64_t>();
    const bool own = std::string(technique) != "bp";
    CHECK(units.contains("technique_array") == own);
    if (own) {
      const json& t = units["technique_array"];
      CHECK(t["busy_fraction"].get<double>() <= 1.0);
      CHECK(t["vector_busy_cycles"].get<double>() <= cycles);
      CHECK(t["macs"].get<std::int64_t>() > 0);
      macs += t["macs"].get<std::int64_t>();
    }
    CHECK(macs == stats["totals"]["train"]["stats"]["macs"].get<std::int64_t>() +
                      stats["totals"]["eval"]["stats"]["macs"].get<std::int64_t>());
  }
}

TEST_CASE("compare -q prints only its final line", "[outputs][compare]") {
  require_dataset("mnist");
  const std::string dir = fresh_dir("compare-quiet");
  const auto r =
      run_trainsim({"compare", kQuickstart, "--techniques", "bp,specbp", "-q", "-o", dir + "/cmp",
                    "-s", "dataset.train_limit=200", "-s", "dataset.test_limit=100"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(std::count(r.out.begin(), r.out.end(), '\n') == 1);
  CHECK(r.out ==
        "wrote compare.csv, report.html and a directory per variant into " + dir + "/cmp/\n");
  CHECK(r.err.empty());
  // The tables it did not print are in its files.
  for (const char* f : {"compare.csv", "table_time.csv", "table_accuracy.csv"})
    CHECK(std::filesystem::exists(dir + "/cmp/" + f));
}

TEST_CASE("A run on one accelerator writes a timeline of its first batches, one track per unit",
          "[outputs][timeline]") {
  require_dataset("mnist");
  const std::string dir = fresh_dir("run-timeline");
  for (const char* technique : {"adagp-max", "bp"}) {
    INFO(technique);
    const std::string out = dir + "/" + technique;
    run_ok({"run", kQuickstart, "-o", out, "-q", "-s", std::string("technique=") + technique, "-s",
            "dataset.train_limit=600", "-s", "dataset.test_limit=100"});
    const json trace = json::parse(read_file(out + "/timeline.json"));
    std::map<int, std::string> tracks;
    std::map<int, std::vector<std::pair<double, double>>> slices;
    std::int64_t op_bytes = 0, channel_bytes = 0;
    for (const json& e : trace["traceEvents"]) {
      if (e["ph"] == "M") tracks[e["tid"].get<int>()] = e["args"]["name"].get<std::string>();
      if (e["ph"] != "X") continue;
      const double ts = e["ts"].get<double>(), dur = e["dur"].get<double>();
      CHECK(dur >= 0);
      slices[e["tid"].get<int>()].emplace_back(ts, ts + dur);
      if (e["cat"] == "dram") {
        channel_bytes += e["args"]["bytes"].get<std::int64_t>();
      } else {
        CHECK(e["args"].contains("macs"));
        op_bytes += e["args"]["dram_bytes"].get<std::int64_t>();
      }
    }
    // The main array and vector unit, and the predictor array and its vector unit for MAX,
    // then the DRAM channel they share, which carries every op's traffic.
    CHECK(tracks.size() == (std::string(technique) == "bp" ? 3U : 5U));
    CHECK(tracks.at(0) == "adagp_ws180 PE array");
    CHECK(tracks.rbegin()->second == "adagp_ws180 DRAM channel");
    CHECK(channel_bytes == op_bytes);
    CHECK(channel_bytes > 0);
    std::size_t ops = 0;
    for (auto& [tid, s] : slices) {
      INFO("track " << tid);
      CHECK(tracks.count(tid) == 1);
      // One unit runs one op at a time.
      std::sort(s.begin(), s.end());
      for (std::size_t i = 1; i < s.size(); ++i) CHECK(s[i].first >= s[i - 1].second - 1e-6);
      ops += s.size();
    }
    // A bounded window: the first flushes, however long the run.
    CHECK(ops > 0);
    CHECK(ops < 5000);
  }
}

TEST_CASE("compare's terminal tables fit 80 columns, with more variants than fit side by side",
          "[outputs][compare]") {
  require_dataset("mnist");
  const std::string dir = fresh_dir("compare-width");
  const auto r = run_trainsim({"compare", kQuickstart, "--techniques",
                               "bp,specbp,adagp-max,adagp-efficient,adagp-low", "-o", dir + "/cmp",
                               "-s", "dataset.train_limit=200", "-s", "dataset.test_limit=100",
                               "-s", "training.epochs=2"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  std::istringstream lines(r.out);
  int tables = 0;
  for (std::string line; std::getline(lines, line);) {
    // Lines that carry a path or a note have no width of their own.
    if (line.rfind("wrote ", 0) == 0 || line.rfind("note: ", 0) == 0 ||
        line.rfind("trainsim compare: ", 0) == 0)
      continue;
    INFO(line);
    CHECK(line.size() <= 80);
    tables += line.rfind("epoch ", 0) == 0;
  }
  // Five variants: each per-epoch table wraps into a second block.
  CHECK(tables >= 6);
}
