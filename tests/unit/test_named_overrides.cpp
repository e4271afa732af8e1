// --set into a technique or a system that the experiment gives by name: `technique:
// specbp@0.25` with `--set technique.own<SpecBpSettings>().store=dram`, `system: four_ws180_chain`
// with
// `--set system.devices=8`, as `--set accelerator.array.rows=16` does for a named accelerator.
// The named thing keeps everything the override does not set; a key it does not have is an
// error naming the override.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "sim/core/paths.h"
#include "sim/run/experiment_file.h"
#include "sim/techniques/adagp_settings.h"
#include "sim/techniques/specbp_settings.h"
#include "tests/support/config_errors.h"
#include "tests/support/temp_dir.h"

namespace fs = std::filesystem;
using namespace trainsim;
using trainsim::test::check_error;
using trainsim::test::error_of;
using trainsim::test::pos_of;

namespace {

// experiments/, systems/ and accelerators/ side by side, as in the shipped configs/ tree.
class TempConfigs {
 public:
  TempConfigs() {
    for (const char* d : {"experiments", "systems", "systems/deep", "accelerators"})
      fs::create_directories(dir_ / d);
  }
  std::string write(const std::string& rel, const std::string& text) const {
    const std::string p = fs::path(dir_ / rel).lexically_normal().string();
    std::ofstream(p) << text;
    return p;
  }

 private:
  test::TempDir dir_{"named-overrides"};
};

// A shape-only experiment with a network of 20 dense layers (enough stages for 16 devices).
std::string experiment_text(const std::string& extra) {
  std::string layers = "[{type: flatten}";
  for (int i = 0; i < 19; ++i) layers += ", {type: dense, units: 16}";
  layers += ", {type: dense, units: 10}, {type: softmax}]";
  return "network:\n  input: [1, 4, 4]\n  layers: " + layers +
         "\ndataset: {name: mnist}\ntraining: {batch_size: 16}\nnumerics: none\n" + extra;
}

std::string pipeline_experiment() {
  return configs_root() + "/experiments/lenet5_fashion_pipeline.yaml";
}

}  // namespace

TEST_CASE("A technique given by name takes --set technique.<key>", "[config][overrides]") {
  TempConfigs tmp;
  auto load = [&](const std::string& technique, const std::vector<std::string>& overrides) {
    return load_experiment(
        tmp.write("experiments/exp.yaml", experiment_text("technique: " + technique + "\n")),
        overrides);
  };
  SECTION("specbp@0.25: store set, the threshold kept") {
    const ExperimentSpec s = load("specbp@0.25", {"technique.store=dram"});
    CHECK(s.sim.technique.kind == "specbp");
    CHECK(s.sim.technique.get<SpecBpSettings>().threshold == 0.25);
    CHECK(s.sim.technique.get<SpecBpSettings>().store == "dram");
    CHECK(load("specbp@0.25", {}).sim.technique.get<SpecBpSettings>().store == "buffer");
  }
  SECTION("the shorthand's own key, and a name without a parameter") {
    CHECK(load("specbp@0.25", {"technique.threshold=0.1"})
              .sim.technique.get<SpecBpSettings>()
              .threshold == 0.1);
    const ExperimentSpec s = load("specbp", {"technique.unit.array=shared"});
    CHECK(s.sim.technique.get<SpecBpSettings>().threshold == 0.25);  // specbp's default
    CHECK(s.sim.technique.unit == "shared");
    const ExperimentSpec a = load("adagp-max@2", {"technique.phase_gp=zero"});
    CHECK(a.sim.technique.kind == "adagp-max");
    CHECK(a.sim.technique.get<AdaGpSettings>().warmup_epochs == 2);
    CHECK(a.sim.technique.get<AdaGpSettings>().phase_gp == "zero");
  }
  SECTION("a technique named by an earlier override") {
    const ExperimentSpec s =
        load("bp", {"technique=specbp@0.3", "technique.store=dram", "technique.threshold=0.5"});
    CHECK(s.sim.technique.kind == "specbp");
    CHECK(s.sim.technique.get<SpecBpSettings>().threshold == 0.5);
    CHECK(s.sim.technique.get<SpecBpSettings>().store == "dram");
  }
  SECTION("a key the named technique does not have") {
    std::string msg = error_of([&] { load("bp", {"technique.store=dram"}); });
    CHECK(msg.rfind("--set technique.store: "
                    "technique.store: unknown key 'store'",
                    0) == 0);
    msg = error_of([&] { load("specbp@0.25", {"technique.warmup_epochs=2"}); });
    CHECK(msg.rfind("--set technique.warmup_epochs: "
                    "technique.warmup_epochs: unknown key "
                    "'warmup_epochs'",
                    0) == 0);
    CHECK(msg.find("store") != std::string::npos);  // the keys it does have
    msg = error_of([&] { load("specbp@0.25", {"technique.store=disk"}); });
    CHECK(msg.rfind("--set technique.store: "
                    "technique.store: must be one of buffer, dram",
                    0) == 0);
  }
  SECTION("a name that is no technique is reported where it is written") {
    const std::string text = experiment_text("technique: specbq@0.25\n");
    const std::string path = tmp.write("experiments/exp.yaml", text);
    check_error(error_of([&] { load_experiment(path, {"technique.store=dram"}); }), path,
                pos_of(text, "specbq"), "technique", "unknown technique 'specbq'");
    const std::string bad = experiment_text("technique: bp@0.5\n");
    const std::string bad_path = tmp.write("experiments/exp.yaml", bad);
    check_error(error_of([&] { load_experiment(bad_path, {"technique.threshold=1"}); }), bad_path,
                pos_of(bad, "bp@0.5"), "technique", "takes no parameter");
  }
}

TEST_CASE("A system given by name or path takes --set system.<key>",
          "[config][overrides][pipeline]") {
  TempConfigs tmp;
  SECTION("the shipped pipeline experiment: devices, links") {
    const ExperimentSpec base = load_experiment(pipeline_experiment());
    REQUIRE(base.system.devices.size() == 4);
    const ExperimentSpec s = load_experiment(pipeline_experiment(), {"system.devices=8"});
    CHECK(s.system.devices.size() == 8);
    CHECK(s.system.name == "four_ws180_chain");  // the file's name and the rest of it stay
    CHECK(fs::path(s.system.source).filename() == "four_ws180_chain.yaml");
    CHECK(s.system.topology == "chain");
    CHECK(s.system.link.bandwidth_gbps == 32);
    CHECK(s.system.net.devices == 8);
    CHECK(s.system.devices[7].accelerator.name == "adagp_ws180");
    const ExperimentSpec l =
        load_experiment(pipeline_experiment(), {"system.link.bandwidth_gbps=64"});
    CHECK(l.system.devices.size() == 4);
    CHECK(l.system.link.bandwidth_gbps == 64);
    CHECK(l.system.link.latency_ns == 1000);
  }
  SECTION("16 devices of a system named in a configs tree of its own") {
    tmp.write("systems/pair.yaml", "devices: 2\ntopology: switch\nlink: {bandwidth_gbps: 8}\n");
    const std::string exp = tmp.write("experiments/exp.yaml", experiment_text("system: pair\n"));
    const ExperimentSpec s = load_experiment(exp, {"system.devices=16"});
    CHECK(s.system.devices.size() == 16);
    CHECK(s.system.name == "pair");
    CHECK(s.system.topology == "switch");
    CHECK(s.system.link.bandwidth_gbps == 8);
  }
  SECTION("paths inside the system file stay relative to that file") {
    tmp.write("accelerators/tacc.yaml",
              "name: tacc\ndataflow: os\narray: {rows: 3, cols: 3}\nword_bits: 8\n");
    tmp.write(
        "systems/deep/mine.yaml",
        "devices: [{accelerator: ../../accelerators/tacc.yaml, count: 2}]\ntopology: chain\n");
    const std::string exp =
        tmp.write("experiments/exp.yaml", experiment_text("system: ../systems/deep/mine.yaml\n"));
    const ExperimentSpec s = load_experiment(exp, {"system.link.latency_ns=5"});
    REQUIRE(s.system.devices.size() == 2);
    CHECK(s.system.devices[1].accelerator.name == "tacc");
    CHECK(s.system.devices[1].dataflow == "os");
    CHECK(s.system.link.latency_ns == 5);
    CHECK(s.system.name == "mine");
  }
  SECTION("system: none becomes a system to fill") {
    const std::string exp = tmp.write("experiments/exp.yaml", experiment_text("system: none\n"));
    CHECK_FALSE(load_experiment(exp).system.present());
    const ExperimentSpec s = load_experiment(exp, {"system.devices=2"});
    CHECK(s.system.devices.size() == 2);
  }
  SECTION("a key the named system does not have, and errors inside its file") {
    std::string msg =
        error_of([&] { load_experiment(pipeline_experiment(), {"system.bandwidth_gbps=64"}); });
    CHECK(msg.rfind("--set system.bandwidth_gbps: system.bandwidth_gbps: unknown key "
                    "'bandwidth_gbps'",
                    0) == 0);
    CHECK(msg.find("link") != std::string::npos);  // the keys it does have
    msg = error_of([&] { load_experiment(pipeline_experiment(), {"system.devices=65"}); });
    CHECK(msg.rfind("--set system.devices: system.devices: ", 0) == 0);
    // A value the override did not touch keeps its place in the system's file.
    const std::string bad = "devices: 2\ntopology: torus\n";
    const std::string file = tmp.write("systems/bad.yaml", bad);
    const std::string exp = tmp.write("experiments/exp.yaml", experiment_text("system: bad\n"));
    check_error(error_of([&] { load_experiment(exp, {"system.devices=3"}); }), file,
                pos_of(bad, "torus"), "system.topology", "unknown topology 'torus'");
  }
  SECTION("a system that does not exist is reported where it is named") {
    const std::string text = experiment_text("system: nosuch\n");
    const std::string exp = tmp.write("experiments/exp.yaml", text);
    check_error(error_of([&] { load_experiment(exp, {"system.devices=2"}); }), exp,
                pos_of(text, "nosuch"), "system", "unknown system 'nosuch'");
  }
}
