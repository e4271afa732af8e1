// The experiment's simulation keys (accelerator, dataflow, technique, fidelity): defaults,
// the three ways to give an accelerator, --set overrides into named accelerators and their
// energy tables, error locations (file:line:col and key path, in whichever file the value
// came from), and the resolved_yaml() round trip.
#include <catch2/catch.hpp>

#include "tests/support/accel_compare.h"
#include "tests/support/config_errors.h"

#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "sim/core/error.h"
#include "sim/core/paths.h"
#include "sim/run/experiment_file.h"
#include "sim/techniques/adagp_settings.h"
#include "sim/techniques/specbp_settings.h"
#include "tests/support/temp_dir.h"

namespace fs = std::filesystem;
using namespace trainsim;

using trainsim::test::check_error;
using trainsim::test::check_same_accelerator;
using trainsim::test::error_of;
using trainsim::test::pos_of;

namespace {

// experiments/, networks/, accelerators/ and energy/ side by side like the shipped configs/
// tree, so names also resolve as ../<folder>/<name>.yaml next to the experiment.
class TempSimConfigs {
 public:
  TempSimConfigs() {
    for (const char* d : {"experiments", "networks", "accelerators", "energy"}) {
      fs::create_directories(dir_ / d);
    }
  }
  std::string write(const std::string& rel, const std::string& text) const {
    std::string p = dir_ / rel;
    std::ofstream(p) << text;
    return p;
  }
  std::string experiment(const std::string& text) const {
    return write("experiments/exp.yaml", text);
  }

 private:
  test::TempDir dir_{"sim-config"};
};

// A valid experiment without simulation keys; tests append them.
const char* const kBase =
    "network:\n  input: [1, 4, 4]\n  layers: [{type: flatten}, {type: dense, units: 10}, "
    "{type: softmax}]\ndataset: {name: mnist}\n";

std::string with_base(const std::string& extra) {
  return kBase + extra;
}

std::string normal(const std::string& p) {
  return fs::path(p).lexically_normal().string();
}

std::string quickstart() {
  return configs_root() + "/experiments/quickstart.yaml";
}

// A small accelerator file; `rows` is spliced in so errors can be placed in it.
std::string accel_text(const std::string& rows) {
  return "# a test accelerator\nname: tacc\ndataflow: os\narray:\n  rows: " + rows +
         "\n  cols: 3\nword_bits: 8\nenergy: horowitz45\n";
}

// A complete energy table with the given `mac:` line and DRAM write energy.
std::string energy_text(const std::string& mac, const std::string& dram_write) {
  return mac +
         "\nrf: {read: {pj: 1, per_bits: 16}, write: {pj: 1, per_bits: 16}}\n"
         "noc: {pj: 1, per_bits: 16}\n"
         "buffer: {read: [{kib: 1, pj: 1, per_bits: 16}], write: [{kib: 1, pj: 1, per_bits: "
         "16}]}\n"
         "dram: {read: {pj: 10, per_bits: 16}, write: {pj: " +
         dram_write + ", per_bits: 16}}\nvector_op: 0.1\n";
}

}  // namespace

// ---------------------------------------------------------------------------------------
// Defaults and the ways to name an accelerator

TEST_CASE("experiments without simulation keys get the defaults", "[config]") {
  TempSimConfigs tmp;
  ExperimentSpec s = load_experiment(tmp.experiment(kBase));
  CHECK(s.sim.accelerator.name == "adagp_ws180");
  CHECK(fs::path(s.sim.accelerator.source).filename() == "adagp_ws180.yaml");
  CHECK(s.sim.accelerator.rows == 12);
  CHECK(s.sim.accelerator.cols == 15);
  CHECK(s.sim.accelerator.energy.name == "horowitz45");
  CHECK(s.sim.dataflow == "ws");  // adagp_ws180's own
  CHECK(s.sim.technique.kind == "bp");
  CHECK(s.sim.fidelity == "fast");

  // The shipped experiments load: quickstart names the default, the others rely on it.
  for (const char* name : {"quickstart", "lenet5_mnist", "mlp_fashion", "small_cnn_fashion"}) {
    INFO(name);
    ExperimentSpec e = load_experiment(configs_root() + "/experiments/" + name + ".yaml");
    CHECK(e.sim.accelerator.name == "adagp_ws180");
    CHECK(e.sim.dataflow == "ws");
  }
}

TEST_CASE("accelerators are given by name, path or inline", "[config]") {
  TempSimConfigs tmp;
  SECTION("a shipped name") {
    ExperimentSpec s = load_experiment(tmp.experiment(with_base("accelerator: small_8x8\n")));
    CHECK(s.sim.accelerator.name == "small_8x8");
    CHECK(s.sim.accelerator.rows == 8);
    CHECK(fs::path(s.sim.accelerator.source).filename() == "small_8x8.yaml");
    CHECK(s.sim.dataflow == "ws");
  }
  SECTION("a name found in ../accelerators next to the experiment") {
    std::string acc = tmp.write("accelerators/tacc.yaml", accel_text("2"));
    ExperimentSpec s = load_experiment(tmp.experiment(with_base("accelerator: tacc\n")));
    CHECK(s.sim.accelerator.name == "tacc");
    CHECK(s.sim.accelerator.source == normal(acc));
    CHECK(s.sim.accelerator.rows == 2);
    CHECK(s.sim.accelerator.word_bits == 8);
    CHECK(s.sim.dataflow == "os");  // the accelerator's own
  }
  SECTION("a path relative to the experiment's folder, and an absolute one") {
    std::string acc = tmp.write("accelerators/other.yaml", accel_text("5"));
    ExperimentSpec s =
        load_experiment(tmp.experiment(with_base("accelerator: ../accelerators/other.yaml\n")));
    CHECK(s.sim.accelerator.name == "tacc");
    CHECK(s.sim.accelerator.rows == 5);
    CHECK(s.sim.accelerator.source == normal(acc));
    s = load_experiment(tmp.experiment(with_base("accelerator: " + acc + "\n")));
    CHECK(s.sim.accelerator.rows == 5);
  }
  SECTION("inline, with an energy table by relative path") {
    tmp.write("energy/mine.yaml", energy_text("mac: {8: 0.5}", "10"));
    std::string text = with_base(
        "accelerator:\n  dataflow: is\n  array: {rows: 4, cols: 6}\n  word_bits: 8\n"
        "  energy: ../energy/mine.yaml\n");
    ExperimentSpec s = load_experiment(tmp.experiment(text));
    CHECK(s.sim.accelerator.name == "exp");  // the experiment's stem, as for networks
    CHECK(s.sim.accelerator.source == "<inline>");
    CHECK(s.sim.accelerator.pes() == 24);
    CHECK(s.sim.accelerator.clock_ghz == 1.0);  // accelerator defaults apply
    CHECK(s.sim.accelerator.energy.name == "mine");
    CHECK(s.sim.accelerator.energy.mac == std::vector<std::pair<int, double>>{{8, 0.5}});
    CHECK(s.sim.dataflow == "is");
  }
}

TEST_CASE("dataflow, technique and fidelity", "[config]") {
  TempSimConfigs tmp;
  SECTION("dataflow defaults to the accelerator's") {
    CHECK(load_experiment(tmp.experiment(with_base("accelerator: eyeriss_like\n"))).sim.dataflow ==
          "rs");
    CHECK(load_experiment(tmp.experiment(with_base("accelerator: scalesim_default\n")))
              .sim.dataflow == "os");
  }
  SECTION("explicit values") {
    ExperimentSpec s = load_experiment(tmp.experiment(
        with_base("accelerator: eyeriss_like\ndataflow: ws\ntechnique: bp\nfidelity: cycle\n")));
    CHECK(s.sim.dataflow == "ws");
    CHECK(s.sim.accelerator.dataflow == "rs");  // the accelerator itself is unchanged
    CHECK(s.sim.technique.kind == "bp");
    CHECK(s.sim.fidelity == "cycle");
  }
  SECTION("ADA-GP's Phase GP ablations") {
    for (const char* mode : {"predict", "skip", "zero", "mean", "pseudo"}) {
      const ExperimentSpec s = load_experiment(
          quickstart(), {std::string("technique={kind: adagp-low, phase_gp: ") + mode + "}"});
      CHECK(s.sim.technique.get<AdaGpSettings>().phase_gp == mode);
    }
    CHECK(load_experiment(quickstart(), {"technique=adagp-max"})
              .sim.technique.get<AdaGpSettings>()
              .phase_gp == "predict");
  }
  SECTION("from --set") {
    ExperimentSpec s = load_experiment(quickstart(), {"dataflow=is", "fidelity=cycle"});
    CHECK(s.sim.dataflow == "is");
    CHECK(s.sim.fidelity == "cycle");
  }
}

// ---------------------------------------------------------------------------------------
// Overrides

TEST_CASE("accelerator overrides", "[config]") {
  TempSimConfigs tmp;
  SECTION("accelerator.array.rows on a named accelerator inlines it first") {
    ExperimentSpec s = load_experiment(quickstart(), {"accelerator.array.rows=16"});
    CHECK(s.sim.accelerator.rows == 16);
    CHECK(s.sim.accelerator.cols == 15);  // the rest of the file stays
    CHECK(s.sim.accelerator.name == "adagp_ws180");
    CHECK(fs::path(s.sim.accelerator.source).filename() == "adagp_ws180.yaml");
    CHECK(s.sim.accelerator.energy.name == "horowitz45");
  }
  SECTION("and on the default accelerator") {
    ExperimentSpec s = load_experiment(tmp.experiment(kBase), {"accelerator.array.rows=16"});
    CHECK(s.sim.accelerator.name == "adagp_ws180");
    CHECK(s.sim.accelerator.rows == 16);
  }
  SECTION("accelerator=<name>, then into it") {
    ExperimentSpec s = load_experiment(quickstart(), {"accelerator=small_8x8"});
    CHECK(s.sim.accelerator.name == "small_8x8");
    CHECK(s.sim.dataflow == "ws");
    s = load_experiment(quickstart(), {"accelerator=eyeriss_like", "accelerator.array.cols=7"});
    CHECK(s.sim.accelerator.name == "eyeriss_like");
    CHECK(s.sim.accelerator.rows == 12);
    CHECK(s.sim.accelerator.cols == 7);
    CHECK(s.sim.dataflow == "rs");
  }
  SECTION("accelerator.energy=<name>") {
    ExperimentSpec s = load_experiment(quickstart(), {"accelerator.energy=eyeriss_normalized"});
    CHECK(s.sim.accelerator.name == "adagp_ws180");
    CHECK(s.sim.accelerator.energy.name == "eyeriss_normalized");
    CHECK(s.sim.accelerator.energy.unit == "normalized");
  }
  SECTION("accelerator.energy.<...> inlines the table inside the inlined accelerator") {
    ExperimentSpec s = load_experiment(quickstart(), {"accelerator.energy.dram.read.pj=100"});
    CHECK(s.sim.accelerator.name == "adagp_ws180");
    CHECK(s.sim.accelerator.energy.name == "horowitz45");
    CHECK(s.sim.accelerator.energy.dram_read.pj == 100);
    CHECK(s.sim.accelerator.energy.dram_write.pj == 1950);  // the rest of the table stays
    CHECK(fs::path(s.sim.accelerator.energy.source).filename() == "horowitz45.yaml");
    // Several in a row, into the accelerator and into the table.
    s = load_experiment(quickstart(),
                        {"accelerator.energy=eyeriss_normalized", "accelerator.energy.vector_op=3",
                         "accelerator.array.rows=2", "accelerator.word_bits=8"});
    CHECK(s.sim.accelerator.energy.name == "eyeriss_normalized");
    CHECK(s.sim.accelerator.energy.vector_op == 3);
    CHECK(s.sim.accelerator.energy.dram_read.pj == 200);
    CHECK(s.sim.accelerator.rows == 2);
    CHECK(s.sim.accelerator.word_bits == 8);
  }
  SECTION("into an inline accelerator and its default energy table") {
    std::string text = with_base("accelerator: {dataflow: ws, array: {rows: 2, cols: 2}}\n");
    ExperimentSpec s = load_experiment(
        tmp.experiment(text), {"accelerator.array.rows=3", "accelerator.energy.vector_op=7"});
    CHECK(s.sim.accelerator.rows == 3);
    CHECK(s.sim.accelerator.source == "<inline>");
    CHECK(s.sim.accelerator.energy.name == "horowitz45");
    CHECK(s.sim.accelerator.energy.vector_op == 7);
  }
}

// ---------------------------------------------------------------------------------------
// Errors

TEST_CASE("simulation key errors name file, line, column and key", "[config]") {
  TempSimConfigs tmp;
  std::string file = tmp.experiment("");
  auto err = [&](const std::string& text, const std::vector<std::string>& overrides = {}) {
    std::string path = tmp.experiment(text);
    return error_of([&] { load_experiment(path, overrides); });
  };

  std::string text = with_base("dataflow: xs\n");
  check_error(err(text), file, pos_of(text, "xs"), "dataflow",
              "unknown dataflow 'xs' (known: ws, os, is, rs)");
  text = with_base("technique: adagp_magic\n");
  check_error(err(text), file, pos_of(text, "adagp_magic"), "technique",
              "unknown technique 'adagp_magic' (known: bp");
  text = with_base("fidelity: exact\n");
  check_error(err(text), file, pos_of(text, "exact"), "fidelity",
              "must be one of fast, cycle, got 'exact'");
  text = with_base("technique: {name: bp}\n");
  check_error(err(text), file, pos_of(text, "name: bp"), "technique.name", "unknown key 'name'");
  text = with_base("technique: bp@0.5\n");
  check_error(err(text), file, pos_of(text, "bp@0.5"), "technique", "takes no parameter");
  text = with_base("technique: specbp@abc\n");
  check_error(err(text), file, pos_of(text, "specbp@abc"), "technique", "must be a number");
  text = with_base("technique: {kind: specbp, threshold: -1}\n");
  check_error(err(text), file, pos_of(text, "-1"), "technique.threshold", ">= 0");
  text = with_base("technique: {kind: adagp-max, phase_gp: guess}\n");
  check_error(err(text), file, pos_of(text, "guess"), "technique.phase_gp",
              "must be one of predict, skip, zero, mean, pseudo, oracle, got 'guess'");
  text = with_base("technique: {kind: adagp-max, oracle: {cosine: -2}}\n");
  check_error(err(text), file, pos_of(text, "-2"), "technique.oracle.cosine",
              "must be in [-1, 1], got -2");
  text = with_base("technique: {kind: bp, phase_gp: skip}\n");
  check_error(err(text), file, pos_of(text, "phase_gp"), "technique.phase_gp",
              "unknown key 'phase_gp'");

  text = with_base("accelerator: nosuch\n");
  std::string msg = err(text);
  check_error(msg, file, pos_of(text, "nosuch"), "accelerator", "unknown accelerator 'nosuch'");
  CHECK(msg.find("shipped accelerators: adagp_ws180") != std::string::npos);
  text = with_base("accelerator: ./nosuch.yaml\n");
  check_error(err(text), file, pos_of(text, "./nosuch"), "accelerator",
              "accelerator file './nosuch.yaml' not found (tried ");
  text = with_base("accelerator: [1, 2]\n");
  check_error(err(text), file, pos_of(text, "[1, 2]"), "accelerator",
              "expected an accelerator name, a path to an accelerator file or a mapping");

  // The new keys are listed among the allowed ones.
  text = with_base("acelerator: small_8x8\n");
  check_error(err(text), file, pos_of(text, "acelerator"), "acelerator",
              "allowed: name, network, dataset, training, output, accelerator, dataflow, "
              "technique, fidelity, numerics, memory, residency, system, pipeline, hype)");

  // Inside an inline accelerator: the experiment file, paths under `accelerator.`.
  text = with_base("accelerator:\n  dataflow: ws\n  array: {rows: 0, cols: 2}\n");
  check_error(err(text), file, pos_of(text, "0, cols"), "accelerator.array.rows",
              "must be in [1, 4096], got 0");
  text = with_base("accelerator:\n  dataflow: ws\n  array: {rows: 1, cols: 2}\n  energy: nope\n");
  check_error(err(text), file, pos_of(text, "nope"), "accelerator.energy",
              "unknown energy table 'nope'");
}

TEST_CASE("errors inside an accelerator file name that file", "[config]") {
  TempSimConfigs tmp;
  std::string bad = accel_text("0");
  std::string acc = normal(tmp.write("accelerators/bad.yaml", bad));
  auto err = [&](const std::string& text, const std::vector<std::string>& overrides = {}) {
    std::string path = tmp.experiment(text);
    return error_of([&] { load_experiment(path, overrides); });
  };

  SECTION("by name, by path, and inlined for an override") {
    check_error(err(with_base("accelerator: bad\n")), acc, pos_of(bad, "0\n"),
                "accelerator.array.rows", "must be in [1, 4096], got 0");
    check_error(err(with_base("accelerator: ../accelerators/bad.yaml\n")), acc, pos_of(bad, "0\n"),
                "accelerator.array.rows", "must be in [1, 4096], got 0");
    // An override elsewhere in the accelerator inlines the file; lines still point into it.
    check_error(err(with_base("accelerator: bad\n"), {"accelerator.array.cols=4"}), acc,
                pos_of(bad, "0\n"), "accelerator.array.rows", "must be in [1, 4096], got 0");
    // And once the energy table is inlined too.
    check_error(err(with_base("accelerator: bad\n"), {"accelerator.energy.vector_op=1"}), acc,
                pos_of(bad, "0\n"), "accelerator.array.rows", "must be in [1, 4096], got 0");
  }
  SECTION("the shipped-file example: a copy of small_8x8 with rows: 0") {
    std::ifstream in(configs_root() + "/accelerators/small_8x8.yaml");
    std::string shipped((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::string copy = shipped;
    copy.replace(copy.find("rows: 8"), 7, "rows: 0");
    std::string path = normal(tmp.write("accelerators/small_copy.yaml", copy));
    check_error(err(with_base("accelerator: small_copy\n")), path, pos_of(copy, "0, cols"),
                "accelerator.array.rows", "must be in [1, 4096], got 0");
  }
  SECTION("unknown keys and bad energy references in the file") {
    std::string text = accel_text("1") + "cache: 3\n";
    std::string path = normal(tmp.write("accelerators/extra.yaml", text));
    check_error(err(with_base("accelerator: extra\n")), path, pos_of(text, "cache"),
                "accelerator.cache", "unknown key 'cache'");
    text = accel_text("1");
    text.replace(text.find("horowitz45"), 10, "nosuch");
    path = normal(tmp.write("accelerators/noenergy.yaml", text));
    check_error(err(with_base("accelerator: noenergy\n")), path, pos_of(text, "nosuch"),
                "accelerator.energy", "unknown energy table 'nosuch'");
    // The same reference, met while inlining the table for an override.
    check_error(err(with_base("accelerator: noenergy\n"), {"accelerator.energy.vector_op=1"}), path,
                pos_of(text, "nosuch"), "accelerator.energy", "unknown energy table 'nosuch'");
  }
  SECTION("errors inside the accelerator's energy table name the table's file") {
    std::string table = energy_text("mac: {16: 1}", "-10");
    std::string energy = normal(tmp.write("energy/badtable.yaml", table));
    std::string text = accel_text("1");
    text.replace(text.find("horowitz45"), 10, "badtable");
    text.replace(text.find("word_bits: 8"), 12, "word_bits: 16");
    tmp.write("accelerators/withtable.yaml", text);
    check_error(err(with_base("accelerator: withtable\n")), energy, pos_of(table, "-10"),
                "accelerator.energy.dram.write.pj", "must be >= 0");
    // Also when an override inlined the table (and the accelerator) first.
    check_error(err(with_base("accelerator: withtable\n"), {"accelerator.energy.dram.read.pj=2"}),
                energy, pos_of(table, "-10"), "accelerator.energy.dram.write.pj", "must be >= 0");
  }
  SECTION("values from --set are attributed to the override") {
    auto qerr = [&](const std::vector<std::string>& o) {
      return error_of([&] { load_experiment(quickstart(), o); });
    };
    CHECK(qerr({"accelerator.array.rows=0"}) ==
          "--set accelerator.array.rows: accelerator.array.rows: must be in [1, 4096], got 0");
    CHECK(qerr({"accelerator=nosuch"})
              .find("--set accelerator: accelerator: unknown accelerator 'nosuch'") == 0);
    CHECK(qerr({"accelerator.energy=nosuch"})
              .find("--set accelerator.energy: accelerator.energy: unknown energy table "
                    "'nosuch'") == 0);
    CHECK(qerr({"accelerator.energy.vector_op=-1"}) ==
          "--set accelerator.energy.vector_op: accelerator.energy.vector_op: must be >= 0, "
          "got -1");
    CHECK(qerr({"dataflow=xs"}).find("--set dataflow: dataflow: unknown dataflow 'xs'") == 0);
    CHECK(qerr({"technique=nope"}).find("--set technique: technique: unknown technique") == 0);
    CHECK(qerr({"fidelity=slow"}).find("--set fidelity: fidelity: must be one of fast, cycle") ==
          0);
    // A value the override did not touch keeps its place in the (shipped) file.
    std::string msg = qerr({"accelerator.word_bits=64"});
    INFO(msg);
    CHECK(msg.rfind(normal(configs_root() + "/accelerators/adagp_ws180.yaml") + ":", 0) == 0);
    CHECK(msg.find(": accelerator.energy: energy table 'horowitz45' has no MAC energy for "
                   "64-bit words") != std::string::npos);
  }
}

// ---------------------------------------------------------------------------------------
// resolved_yaml

namespace {

void check_same_sim(const SimulationSpec& x, const SimulationSpec& y) {
  check_same_accelerator(x.accelerator, y.accelerator);
  CHECK(x.dataflow == y.dataflow);
  CHECK(x.technique == y.technique);
  CHECK(x.fidelity == y.fidelity);
}

void check_round_trip(const TempSimConfigs& tmp, const ExperimentSpec& spec) {
  std::string text = resolved_yaml(spec);
  INFO(text);
  CHECK(resolved_yaml(spec) == text);  // deterministic
  std::string path = tmp.write("experiments/resolved.yaml", text);
  ExperimentSpec back = load_experiment(path);
  check_same_sim(spec.sim, back.sim);
  CHECK(back.sim.accelerator.source == "<inline>");
  CHECK(back.sim.accelerator.energy.source == "<inline>");
  // Everything else (network, dataset, training, output) is compared by the re-emitted text,
  // field by field in test_config.cpp.
  CHECK(resolved_yaml(back) == text);
}

}  // namespace

TEST_CASE("resolved_yaml writes the simulation keys and round-trips", "[config]") {
  TempSimConfigs tmp;
  SECTION("quickstart") {
    ExperimentSpec s = load_experiment(quickstart());
    std::string text = resolved_yaml(s);
    // The accelerator is inlined in full, energy table included.
    CHECK(text.find("\naccelerator:\n") != std::string::npos);
    CHECK(text.find("name: adagp_ws180") != std::string::npos);
    CHECK(text.find("array: {rows: 12, cols: 15}") != std::string::npos);
    CHECK(text.find("name: horowitz45") != std::string::npos);
    CHECK(text.find("\ndataflow: ws\n") != std::string::npos);
    CHECK(text.find("\ntechnique: bp\n") != std::string::npos);
    CHECK(text.find("\nfidelity: fast\n") != std::string::npos);
    check_round_trip(tmp, s);
  }
  SECTION("a system of devices and its pipeline") {
    for (const std::string& system :
         {std::string("four_ws180_chain"), std::string("four_ws180_switch"),
          std::string("ws180_v100_chain"),
          std::string("{devices: [{accelerator: adagp_ws180, count: 2}, {accelerator: "
                      "small_8x8, dataflow: os}], topology: custom, links: [{between: [0, 1]}, "
                      "{between: [1, 2], bandwidth_gbps: 8, latency_ns: 2, pj_per_bit: 0.5}]}")}) {
      INFO(system);
      ExperimentSpec s = load_experiment(
          quickstart(), {"system=" + system, "pipeline={schedule: zb-h1, micro_batches: 3}"});
      REQUIRE(s.system.present());
      const std::string text = resolved_yaml(s);
      INFO(text);
      const ExperimentSpec back =
          load_experiment(tmp.write("experiments/resolved_system.yaml", text));
      CHECK(resolved_yaml(back) == text);
      REQUIRE(back.system.devices.size() == s.system.devices.size());
      for (std::size_t d = 0; d < s.system.devices.size(); ++d) {
        check_same_accelerator(s.system.devices[d].accelerator, back.system.devices[d].accelerator);
        CHECK(back.system.devices[d].dataflow == s.system.devices[d].dataflow);
      }
      CHECK(back.system.net.links == s.system.net.links);
      CHECK(back.system.net.has_switch == s.system.net.has_switch);
      CHECK(back.pipeline.schedule == "zb-h1");
      CHECK(back.pipeline.micro_batches == 3);
    }
  }
  SECTION("every shipped accelerator, with its dataflow overridden") {
    for (const char* name : {"adagp_ws180", "eyeriss_like", "scalesim_default", "small_8x8",
                             "systolic_32x32", "tpu_v1_like"}) {
      INFO(name);
      ExperimentSpec s = load_experiment(
          quickstart(), {std::string("accelerator=") + name, "dataflow=is", "fidelity=cycle"});
      check_round_trip(tmp, s);
    }
  }
  SECTION("overridden entries and awkward values") {
    ExperimentSpec s = load_experiment(
        quickstart(), {"accelerator.energy.dram.read.pj=0.30000000000000004",
                       "accelerator.clock_ghz=1e-3", "accelerator.description='a: b # c'",
                       "accelerator.name='123'", "accelerator.energy.name=null_table"});
    CHECK(s.sim.accelerator.name == "123");
    CHECK(s.sim.accelerator.energy.dram_read.pj == 0.1 + 0.2);
    check_round_trip(tmp, s);
  }
  SECTION("an inline accelerator") {
    std::string text = with_base(
        "accelerator: {dataflow: rs, array: {rows: 3, cols: 4}, energy: eyeriss_normalized}\n"
        "dataflow: os\n");
    ExperimentSpec s = load_experiment(tmp.experiment(text));
    CHECK(s.sim.dataflow == "os");
    check_round_trip(tmp, s);
  }
}
