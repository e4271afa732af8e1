// Accelerator and energy-table configs: the shipped presets, the accelerator_yaml() round
// trip, every error case (file:line:col and key path on one line), and --set overrides.
#include <catch2/catch.hpp>

#include "tests/support/accel_compare.h"
#include "tests/support/config_errors.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "sim/accel/accelerator_config.h"
#include "sim/core/error.h"
#include "sim/core/paths.h"
#include "tests/support/temp_dir.h"

namespace fs = std::filesystem;
using namespace trainsim;

using trainsim::test::check_error;
using trainsim::test::check_same_accelerator;
using trainsim::test::check_same_energy;
using trainsim::test::error_of;
using trainsim::test::pos_of;

namespace {

// accelerators/ and energy/ side by side like the shipped configs/ tree, so that
// `energy: <name>` can also find ../energy/<name>.yaml.
class TempAccelConfigs {
 public:
  TempAccelConfigs() {
    fs::create_directories(dir_ / "accelerators");
    fs::create_directories(dir_ / "energy");
  }
  std::string write(const std::string& rel, const std::string& text) const {
    std::string p = dir_ / rel;
    std::ofstream(p) << text;
    return p;
  }
  std::string accelerator(const std::string& text) const {
    return write("accelerators/acc.yaml", text);
  }

 private:
  test::TempDir dir_{"accel-config"};
};

const char* const kMinimal = "dataflow: ws\narray: {rows: 4, cols: 5}\n";

void check_round_trip(const TempAccelConfigs& tmp, const AcceleratorSpec& spec) {
  std::string text = accelerator_yaml(spec);
  INFO(text);
  CHECK(accelerator_yaml(spec) == text);  // deterministic
  std::string path = tmp.write("accelerators/resolved.yaml", text);
  AcceleratorSpec back = load_accelerator(path);
  check_same_accelerator(spec, back);
  CHECK(back.source == path);
  CHECK(back.energy.source == "<inline>");
  CHECK(accelerator_yaml(back) == text);
}

}  // namespace

// ---------------------------------------------------------------------------------------
// Shipped configs

TEST_CASE("shipped accelerators and energy tables are listed", "[accel][config]") {
  CHECK(shipped_accelerator_names() == std::vector<std::string>{"adagp_ws180", "eyeriss_like",
                                                                "scalesim_default", "small_8x8",
                                                                "systolic_32x32", "tpu_v1_like"});
  CHECK(shipped_energy_names() ==
        std::vector<std::string>{"eyeriss_ert", "eyeriss_normalized", "horowitz45"});
}

TEST_CASE("horowitz45 energy table has the published values", "[accel][config]") {
  EnergyTable t = load_energy_table("horowitz45");
  CHECK(t.name == "horowitz45");
  CHECK(t.unit == "pJ");
  CHECK(fs::path(t.source).filename() == "horowitz45.yaml");
  CHECK(t.mac == std::vector<std::pair<int, double>>{{8, 0.23}, {16, 1.5}, {32, 4.6}});
  CHECK(t.rf_read.pj == 1.5);
  CHECK(t.rf_read.per_bits == 16);
  CHECK(t.rf_write.pj == 1.5);
  CHECK(t.noc.pj == 3.0);
  CHECK(t.noc.per_bits == 16);
  REQUIRE(t.buffer_read.size() == 4);
  CHECK(t.buffer_read[0].first == 8);
  CHECK(t.buffer_read[0].second.pj == 10.0);
  CHECK(t.buffer_read[0].second.per_bits == 64);
  CHECK(t.buffer_read[2].first == 108);
  CHECK(t.buffer_read[2].second.pj == 29.4);
  CHECK(t.buffer_read[3].first == 512);
  CHECK(t.buffer_read[3].second.pj == 68.3);
  REQUIRE(t.buffer_write.size() == 4);
  CHECK(t.buffer_write[1].second.pj == 25.9);
  CHECK(t.dram_read.pj == 1950);
  CHECK(t.dram_read.per_bits == 64);
  CHECK(t.dram_write.pj == 1950);
  CHECK(t.vector_op == 1.5);
  CHECK(t.leakage_per_pe_ns > 0);
  CHECK(t.leakage_per_kib_ns > 0);
}

TEST_CASE("eyeriss_normalized energy table has Eyeriss' ratios", "[accel][config]") {
  EnergyTable t = load_energy_table(configs_root() + "/energy/eyeriss_normalized.yaml");
  CHECK(t.name == "eyeriss_normalized");
  CHECK(t.unit == "normalized");
  CHECK(t.mac == std::vector<std::pair<int, double>>{{16, 1.0}});
  CHECK(t.rf_read.pj == 1);
  CHECK(t.noc.pj == 2);
  REQUIRE(t.buffer_read.size() == 1);
  CHECK(t.buffer_read[0].second.pj == 6);
  CHECK(t.buffer_read[0].second.per_bits == 16);
  CHECK(t.dram_read.pj == 200);
  CHECK(t.dram_write.per_bits == 16);
  CHECK(t.vector_op == 1);
  CHECK(t.leakage_per_pe_ns == 0);
  CHECK(t.leakage_per_kib_ns == 0);
}

TEST_CASE("shipped accelerators load with their values", "[accel][config]") {
  SECTION("adagp_ws180") {
    AcceleratorSpec a = load_accelerator("adagp_ws180");
    CHECK(a.name == "adagp_ws180");
    CHECK(fs::path(a.source).filename() == "adagp_ws180.yaml");
    CHECK(!a.description.empty());
    CHECK(a.pes() == 180);
    CHECK(a.rows == 12);
    CHECK(a.cols == 15);
    CHECK(a.dataflow == "ws");
    CHECK(a.word_bits == 16);
    CHECK(a.buffer_kib() == 108);
    CHECK(a.rf.weight_words == 224);
    CHECK(a.energy.name == "horowitz45");
    CHECK(fs::path(a.energy.source).filename() == "horowitz45.yaml");
  }
  SECTION("eyeriss_like") {
    AcceleratorSpec a = load_accelerator("eyeriss_like");
    CHECK(a.rows == 12);
    CHECK(a.cols == 14);
    CHECK(a.dataflow == "rs");
    CHECK(a.clock_ghz == 0.2);
    CHECK(a.word_bits == 16);
    CHECK(a.buffer_kib() == 108);
    CHECK(a.rf.input_words == 12);
    CHECK(a.rf.weight_words == 224);
    CHECK(a.rf.psum_words == 24);
    CHECK(a.dram.bandwidth_gbps == 12.8);
    CHECK(a.dram_bytes_per_cycle() == Approx(64));
  }
  SECTION("systolic_32x32") {
    AcceleratorSpec a = load_accelerator("systolic_32x32");
    CHECK(a.pes() == 1024);
    CHECK(a.dataflow == "ws");
    CHECK(a.word_bits == 16);
  }
  SECTION("tpu_v1_like has the TPU v1's matrix unit and memories (Jouppi et al., ISCA 2017)") {
    AcceleratorSpec a = load_accelerator("tpu_v1_like");
    CHECK(a.pes() == 65536);
    CHECK(a.dataflow == "ws");
    CHECK(a.word_bits == 8);
    CHECK(a.clock_ghz == 0.7);
    CHECK(2 * a.pes() * a.clock_ghz / 1e3 == Approx(91.75));  // the paper's 92 TOPS
    CHECK(a.buffer.shared);
    CHECK(a.buffer_kib() == 24 * 1024 + 256);  // Unified Buffer + weight FIFO
    CHECK(a.accumulator.words == 4096 * 256);
    CHECK(a.accumulator_bits() == 32);
    CHECK(a.accumulator_kib() == 4096);  // 4 MiB
    CHECK(a.dram.bandwidth_gbps == 34);
  }
  SECTION("small_8x8") {
    AcceleratorSpec a = load_accelerator("small_8x8");
    CHECK(a.pes() == 64);
    CHECK(a.dataflow == "ws");
  }
  SECTION("scalesim_default matches SCALE-Sim's scale.cfg") {
    AcceleratorSpec a = load_accelerator("scalesim_default");
    CHECK(a.rows == 32);
    CHECK(a.cols == 32);
    CHECK(a.dataflow == "os");
    CHECK(a.word_bits == 8);
    CHECK(a.word_bytes() == 1);
    CHECK(a.buffer.ifmap_kib == 64);
    CHECK(a.buffer.filter_kib == 64);
    CHECK(a.buffer.ofmap_kib == 64);
    CHECK(a.buffer.banks == 1);
    CHECK(a.buffer.words_per_cycle == 10);
  }
  SECTION("every shipped accelerator round-trips") {
    TempAccelConfigs tmp;
    for (const auto& name : shipped_accelerator_names()) {
      INFO(name);
      check_round_trip(tmp, load_accelerator(name));
    }
  }
}

// ---------------------------------------------------------------------------------------
// Defaults, lookup, round trip

TEST_CASE("accelerator defaults fill every optional key", "[accel][config]") {
  TempAccelConfigs tmp;
  AcceleratorSpec a = load_accelerator(tmp.accelerator(kMinimal));
  AcceleratorSpec d;  // the struct's defaults are the documented ones
  CHECK(a.name == "acc");
  CHECK(a.description.empty());
  CHECK(a.rows == 4);
  CHECK(a.cols == 5);
  CHECK(a.clock_ghz == d.clock_ghz);
  CHECK(a.word_bits == 16);
  CHECK(a.rf.weight_words == d.rf.weight_words);
  CHECK_FALSE(a.rf.keep_psums);
  CHECK_FALSE(a.chain_psums);
  CHECK(a.buffer.ifmap_kib == d.buffer.ifmap_kib);
  CHECK(a.buffer.words_per_cycle == d.buffer.words_per_cycle);
  CHECK(a.noc_words_per_cycle == d.noc_words_per_cycle);
  CHECK(a.dram.bandwidth_gbps == d.dram.bandwidth_gbps);
  CHECK(a.dram.latency_cycles == d.dram.latency_cycles);
  CHECK(a.vector_lanes == d.vector_lanes);
  CHECK(a.mapping.objective == MappingObjective::kTime);
  CHECK(a.accumulator.words == 0);  // none
  CHECK(a.accumulator_kib() == 0);
  CHECK(a.energy.name == "horowitz45");
}

TEST_CASE("energy tables are found by name, path, or given inline", "[accel][config]") {
  TempAccelConfigs tmp;
  const std::string table =
      "unit: normalized\nmac: {64: 2}\nrf: {read: {pj: 1, per_bits: 16}, write: {pj: 1, "
      "per_bits: 16}}\nnoc: {pj: 2, per_bits: 16}\nbuffer: {read: [{kib: 1, pj: 6, per_bits: "
      "16}], write: [{kib: 1, pj: 7, per_bits: 16}]}\ndram: {read: {pj: 200, per_bits: 16}, "
      "write: {pj: 201, per_bits: 16}}\nvector_op: 0.5\n";
  tmp.write("energy/private.yaml", table);
  SECTION("a name next to the accelerators folder") {
    AcceleratorSpec a =
        load_accelerator(tmp.accelerator(std::string(kMinimal) + "energy: private\n"));
    CHECK(a.energy.name == "private");
    CHECK(a.energy.mac == std::vector<std::pair<int, double>>{{64, 2.0}});
    CHECK(a.energy.buffer_write[0].second.pj == 7);
    CHECK(a.energy.leakage_per_pe_ns == 0);  // optional
  }
  SECTION("a path relative to the accelerator") {
    AcceleratorSpec a = load_accelerator(
        tmp.accelerator(std::string(kMinimal) + "energy: ../energy/private.yaml\n"));
    CHECK(a.energy.name == "private");
  }
  SECTION("a shipped name") {
    AcceleratorSpec a =
        load_accelerator(tmp.accelerator(std::string(kMinimal) + "energy: eyeriss_normalized\n"));
    CHECK(a.energy.unit == "normalized");
  }
  SECTION("inline") {
    std::string text = std::string(kMinimal) + "energy:\n  name: mine\n";
    std::size_t start = 0;
    while (start < table.size()) {
      std::size_t nl = table.find('\n', start);
      text += "  " + table.substr(start, nl - start + 1);
      start = nl + 1;
    }
    AcceleratorSpec a = load_accelerator(tmp.accelerator(text));
    CHECK(a.energy.name == "mine");
    CHECK(a.energy.source == "<inline>");
    CHECK(a.energy.vector_op == 0.5);
    check_round_trip(tmp, a);
  }
}

TEST_CASE("accelerator_yaml round-trips awkward values", "[accel][config]") {
  TempAccelConfigs tmp;
  std::string text =
      "name: 'odd: name'\ndescription: \"line one, 'quoted' # not a comment\"\ndataflow: is\n"
      "array: {rows: 1, cols: 1000, chain_psums: true}\nclock_ghz: 0.30000000000000004\n"
      "word_bits: 64\n"
      "rf: {input_words: 1, weight_words: 1048576, psum_words: 3, keep_psums: true}\n"
      "buffer: {ifmap_kib: 0.1, filter_kib: 1e-3, ofmap_kib: 123456.789, banks: 7, "
      "words_per_cycle: 1}\nnoc: {words_per_cycle: 1}\n"
      "dram: {bandwidth_gbps: 1.0000000000000002e-3, latency_cycles: 0}\nvector_unit: {lanes: 1}\n"
      "mapping: {tile: {C: 3}, stationary: ofmap, objective: edp}\n"
      "accumulator: {words: 1073741824, bits: 32}\n"
      "energy:\n  unit: pJ\n  mac: {4: 0.1, 64: 1e10}\n"
      "  rf: {read: {pj: 0, per_bits: 1}, write: {pj: 0.1, per_bits: 3}}\n"
      "  noc: {pj: 3.3333333333333335, per_bits: 16}\n"
      "  buffer:\n    read: [{kib: 0.5, pj: 1, per_bits: 8}, {kib: 0.75, pj: 2, per_bits: 8}]\n"
      "    write: [{kib: 1, pj: 1, per_bits: 8}]\n"
      "  dram: {read: {pj: 1, per_bits: 64}, write: {pj: 2, per_bits: 64}}\n"
      "  vector_op: 0\n  leakage: {per_pe_ns: 1e-9}\n";
  AcceleratorSpec a = load_accelerator(tmp.accelerator(text));
  CHECK(a.name == "odd: name");
  CHECK(a.rf.weight_words == 1048576);
  CHECK(a.rf.keep_psums);
  CHECK(a.chain_psums);
  CHECK(a.energy.name == "inline");
  CHECK(a.energy.leakage_per_kib_ns == 0);
  CHECK(a.mapping.objective == MappingObjective::kEdp);
  CHECK(a.accumulator.words == 1073741824);
  CHECK(a.accumulator.bits == 32);
  CHECK(a.accumulator_kib() == 4.0 * 1024 * 1024);
  check_round_trip(tmp, a);
}

// ---------------------------------------------------------------------------------------
// Errors

TEST_CASE("accelerator errors name file, line, column and key", "[accel][config]") {
  TempAccelConfigs tmp;
  auto err = [&](const std::string& text) {
    std::string path = tmp.accelerator(text);
    return error_of([&] { load_accelerator(path); });
  };
  const std::string file = tmp.accelerator("");
  // The minimal accelerator with `extra` appended: its error names `key` at the position of
  // `at` in the text and says `message`.
  auto after_minimal = [&](const std::string& extra, const std::string& at, const char* key,
                           const char* message) {
    const std::string text = std::string(kMinimal) + extra;
    check_error(err(text), file, pos_of(text, at), key, message);
  };

  SECTION("unknown key") {
    after_minimal("buffer: {ifmap_kb: 64}\n", "ifmap_kb", "buffer.ifmap_kb",
                  "unknown key 'ifmap_kb' (allowed: kib, ifmap_kib, filter_kib, ofmap_kib");
    after_minimal("clock_mhz: 200\n", "clock_mhz", "clock_mhz", "unknown key");
  }
  SECTION("memory model, shared buffer and mapping constraints") {
    after_minimal("memory: lru\n", "lru", "memory",
                  "unknown memory model 'lru' (known: tiled, scalesim)");
    after_minimal("buffer: {kib: 108, filter_kib: 27}\n", "27", "buffer.filter_kib",
                  "either shared (`kib`) or partitioned");
    after_minimal("buffer: {kib: 0}\n", "0}", "buffer.kib",
                  "must be in [0.001, 1073741824], got 0");
    after_minimal("mapping: {tile: {Z: 4}}\n", "Z:", "mapping.tile.Z",
                  "unknown key 'Z' (allowed: N, K, C, P, Q, R, S)");
    after_minimal("mapping: {tile: {C: 0}}\n", "0}", "mapping.tile.C",
                  "must be in [1, 1048576], got 0");
    after_minimal("mapping: {stationary: psum}\n", "psum", "mapping.stationary", "psum");
    after_minimal("mapping: {objective: speed}\n", "speed", "mapping.objective", "speed");
  }
  SECTION("accumulator and rf.keep_psums") {
    after_minimal("accumulator: {words: -1}\n", "-1", "accumulator.words",
                  "must be in [0, 1073741824], got -1");
    after_minimal("accumulator: {words: 4096, bits: 24}\n", "24", "accumulator.bits",
                  "must be one of 4, 8, 16, 32, 64, got 24");
    after_minimal("accumulator: {bits: 32}\n", "accumulator", "accumulator.words",
                  "missing required key");
    after_minimal("rf: {keep_psums: yes}\n", "yes", "rf.keep_psums",
                  "expected true or false, got 'yes'");
    const std::string chain = "dataflow: rs\narray: {rows: 2, cols: 2, chain_psums: 1}\n";
    check_error(err(chain), file, pos_of(chain, "1}"), "array.chain_psums",
                "expected true or false, got '1'");
    after_minimal("accumulator: {entries: 4096}\n", "entries", "accumulator.entries",
                  "unknown key 'entries' (allowed: words, bits)");
  }
  SECTION("wrong type") {
    std::string text = "dataflow: ws\narray: {rows: 12.5, cols: 4}\n";
    check_error(err(text), file, pos_of(text, "12.5"), "array.rows",
                "expected an integer, got '12.5'");
    after_minimal("dram: fast\n", "fast", "dram", "expected a mapping, got 'fast'");
  }
  SECTION("zero rows") {
    std::string text = "dataflow: ws\narray: {rows: 0, cols: 4}\n";
    check_error(err(text), file, pos_of(text, "0,"), "array.rows", "must be in [1, 4096], got 0");
  }
  SECTION("negative bandwidth") {
    after_minimal("dram: {bandwidth_gbps: -25.6}\n", "-25.6", "dram.bandwidth_gbps",
                  "must be in [0.001, 1000000000], got -25.6");
  }
  SECTION("other ranges") {
    after_minimal("word_bits: 12\n", "12", "word_bits", "must be one of 4, 8, 16, 32, 64, got 12");
    after_minimal("buffer: {ofmap_kib: 0}\n", "0}", "buffer.ofmap_kib",
                  "must be in [0.001, 1073741824], got 0");
    after_minimal("dram: {latency_cycles: -1}\n", "-1", "dram.latency_cycles",
                  "must be in [0, 1048576]");
    after_minimal("clock_ghz: 0\n", "0\n", "clock_ghz", "must be in [0.001, 100], got 0");
    after_minimal("vector_unit: {lanes: 0}\n", "0}", "vector_unit.lanes",
                  "must be in [1, 1048576]");
    after_minimal("rf: {psum_words: 0}\n", "0}", "rf.psum_words", "must be in [1, 1048576]");
  }
  SECTION("unknown dataflow string") {
    std::string text = "dataflow: weight_stationary\narray: {rows: 1, cols: 1}\n";
    check_error(err(text), file, pos_of(text, "weight_stationary"), "dataflow",
                "must be one of ws, os, is, rs, got 'weight_stationary'");
  }
  SECTION("missing required keys") {
    std::string text = "array: {rows: 1, cols: 1}\n";
    check_error(err(text), file, "1:1", "dataflow", "missing required key");
    std::string cols = "dataflow: ws\narray: {rows: 1}\n";
    check_error(err(cols), file, pos_of(cols, "array"), "array.cols", "missing required key");
  }
  SECTION("unknown energy table") {
    const std::string text = std::string(kMinimal) + "energy: nosuch\n";
    check_error(err(text), file, pos_of(text, "nosuch"), "energy", "unknown energy table 'nosuch'");
    CHECK(err(text).find("shipped energy tables: eyeriss_ert, eyeriss_normalized, horowitz45") !=
          std::string::npos);
  }
  SECTION("unknown accelerator name") {
    std::string msg = error_of([] { load_accelerator("nosuch"); });
    CHECK(msg.find("unknown accelerator 'nosuch'") == 0);
    CHECK(msg.find("shipped accelerators: adagp_ws180") != std::string::npos);
  }
}

// A valid table whose lines the error cases below edit one at a time.
const char* const kTable =
    "name: t\n"
    "unit: pJ\n"
    "mac: {8: 0.23, 16: 1.5}\n"
    "rf: {read: {pj: 1.5, per_bits: 16}, write: {pj: 1.5, per_bits: 16}}\n"
    "noc: {pj: 3.0, per_bits: 16}\n"
    "buffer:\n"
    "  read: [{kib: 8, pj: 10, per_bits: 64}, {kib: 64, pj: 25.9, per_bits: 64}]\n"
    "  write: [{kib: 8, pj: 10, per_bits: 64}]\n"
    "dram: {read: {pj: 1950, per_bits: 64}, write: {pj: 1950, per_bits: 64}}\n"
    "vector_op: 1.5\n"
    "leakage: {per_pe_ns: 0.1, per_kib_ns: 0.05}\n";

std::string edited(const std::string& from, const std::string& to) {
  std::string text = kTable;
  std::size_t at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

TEST_CASE("an energy table file is read again once its text changes", "[accel][config]") {
  // A process keeps the tables it parsed (parse_energy_file): the same text gives the same
  // table without parsing, a changed one is parsed again.
  TempAccelConfigs tmp;
  const std::string file = tmp.write("energy/t.yaml", kTable);
  const EnergyTable first = load_energy_table(file);
  CHECK(load_energy_table(file).vector_op == first.vector_op);
  tmp.write("energy/t.yaml", edited("vector_op: 1.5", "vector_op: 2.5"));
  CHECK(load_energy_table(file).vector_op == 2.5);
  const std::string accel = tmp.accelerator(std::string(kMinimal) + "energy: t\n");
  CHECK(load_accelerator(accel).energy.vector_op == 2.5);
  tmp.write("energy/t.yaml", kTable);
  CHECK(load_accelerator(accel).energy.vector_op == first.vector_op);
}

TEST_CASE("energy table errors name file, line, column and key", "[accel][config]") {
  TempAccelConfigs tmp;
  const std::string file = tmp.write("energy/t.yaml", kTable);
  auto err = [&](const std::string& text) {
    tmp.write("energy/t.yaml", text);
    return error_of([&] { load_energy_table(file); });
  };
  CHECK(load_energy_table(file).name == "t");

  SECTION("unknown key") {
    std::string text = edited("vector_op: 1.5", "vector_ops: 1.5");
    check_error(err(text), file, pos_of(text, "vector_ops"), "vector_ops", "unknown key");
  }
  SECTION("wrong type") {
    std::string text = edited("noc: {pj: 3.0", "noc: {pj: cheap");
    check_error(err(text), file, pos_of(text, "cheap"), "noc.pj", "expected a number, got 'cheap'");
  }
  SECTION("negative energy, zero per_bits") {
    std::string neg = edited("write: {pj: 1950", "write: {pj: -1");
    check_error(err(neg), file, pos_of(neg, "-1"), "dram.write.pj", "must be >= 0, got -1");
    std::string bits = edited("noc: {pj: 3.0, per_bits: 16}", "noc: {pj: 3.0, per_bits: 0}");
    check_error(err(bits), file, pos_of(bits, "0}"), "noc.per_bits", "must be in [1, 4096], got 0");
  }
  SECTION("missing entry") {
    std::string text = edited("noc: {pj: 3.0, per_bits: 16}", "noc: {pj: 3.0}");
    check_error(err(text), file, pos_of(text, "noc"), "noc.per_bits", "missing required key");
    std::string no_dram =
        edited("dram: {read: {pj: 1950, per_bits: 64}, write: {pj: 1950, per_bits: 64}}\n", "");
    check_error(err(no_dram), file, "1:1", "dram", "missing required key");
  }
  SECTION("non-increasing buffer table") {
    std::string text = edited("{kib: 64, pj: 25.9", "{kib: 8, pj: 25.9");
    check_error(err(text), file, pos_of(text, "8, pj: 25.9"), "buffer.read.1.kib",
                "buffer sizes must increase, got 8 KiB after 8 KiB");
  }
  SECTION("empty tables") {
    std::string buf = edited("write: [{kib: 8, pj: 10, per_bits: 64}]", "write: []");
    check_error(err(buf), file, pos_of(buf, "[]"), "buffer.write",
                "must give at least one buffer size");
    std::string mac = edited("mac: {8: 0.23, 16: 1.5}", "mac: {}");
    check_error(err(mac), file, pos_of(mac, "{}"), "mac", "must give at least one operand width");
  }
  SECTION("MAC widths") {
    std::string order = edited("{8: 0.23, 16: 1.5}", "{16: 1.5, 8: 0.23}");
    check_error(err(order), file, pos_of(order, "8: 0.23"), "mac.8",
                "operand widths must increase, got 8 after 16");
    std::string word = edited("{8: 0.23, 16: 1.5}", "{8: 0.23, wide: 1.5}");
    check_error(err(word), file, pos_of(word, "wide"), "mac.wide", "expected an integer");
  }
  SECTION("unit") {
    std::string text = edited("unit: pJ", "unit: nJ");
    check_error(err(text), file, pos_of(text, "nJ"), "unit",
                "must be one of pJ, normalized, got 'nJ'");
  }
  SECTION("unknown name") {
    std::string msg = error_of([] { load_energy_table("nosuch"); });
    CHECK(msg.find("unknown energy table 'nosuch'") == 0);
  }
}

TEST_CASE("an energy table without a MAC entry for the word width is an error", "[accel][config]") {
  TempAccelConfigs tmp;
  tmp.write("energy/t.yaml", kTable);  // MAC entries up to 16 bits
  const std::string file = tmp.accelerator("");
  auto err = [&](const std::string& text) {
    std::string path = tmp.accelerator(text);
    return error_of([&] { load_accelerator(path); });
  };
  SECTION("named table: blamed at the accelerator's energy key") {
    std::string text = std::string(kMinimal) + "word_bits: 32\nenergy: t\n";
    check_error(err(text), file, pos_of(text, "t\n"), "energy",
                "energy table 't' has no MAC energy for 32-bit words (widest entry: 16-bit)");
  }
  SECTION("default table") {
    std::string text = std::string(kMinimal) + "word_bits: 64\n";
    check_error(err(text), file, "1:1", "energy",
                "energy table 'horowitz45' has no MAC energy for 64-bit words");
  }
  SECTION("inline table: blamed at its mac entry") {
    std::string text = std::string(kMinimal) +
                       "word_bits: 32\nenergy:\n  name: x\n  mac: {16: 1}\n"
                       "  rf: {read: {pj: 1, per_bits: 16}, write: {pj: 1, per_bits: 16}}\n"
                       "  noc: {pj: 2, per_bits: 16}\n"
                       "  buffer: {read: [{kib: 1, pj: 6, per_bits: 16}], "
                       "write: [{kib: 1, pj: 6, per_bits: 16}]}\n"
                       "  dram: {read: {pj: 200, per_bits: 16}, write: {pj: 200, per_bits: 16}}\n"
                       "  vector_op: 1\n";
    check_error(err(text), file, pos_of(text, "{16: 1}"), "energy.mac",
                "energy table 'x' has no MAC energy for 32-bit words");
  }
  SECTION("errors inside a named table name that file and the energy path") {
    std::string bad = edited("vector_op: 1.5", "vector_op: -1");
    std::string table = tmp.write("energy/t.yaml", bad);
    check_error(err(std::string(kMinimal) + "energy: t\n"), table, pos_of(bad, "-1"),
                "energy.vector_op", "must be >= 0");
  }
}

// ---------------------------------------------------------------------------------------
// Overrides

TEST_CASE("accelerator overrides change the tree before validation", "[accel][config]") {
  TempAccelConfigs tmp;
  SECTION("array.rows=4 on a shipped preset") {
    AcceleratorSpec a = load_accelerator("adagp_ws180", {"array.rows=4"});
    CHECK(a.rows == 4);
    CHECK(a.cols == 15);
    CHECK(a.pes() == 60);
  }
  SECTION("several, including a new mapping") {
    AcceleratorSpec a = load_accelerator(
        tmp.accelerator(kMinimal),
        {"dataflow=os", "dram.bandwidth_gbps=12.5", "buffer={ifmap_kib: 8}", "name=x"});
    CHECK(a.dataflow == "os");
    CHECK(a.dram.bandwidth_gbps == 12.5);
    CHECK(a.buffer.ifmap_kib == 8);
    CHECK(a.buffer.filter_kib == 64);
    CHECK(a.name == "x");
  }
  SECTION("energy by name, and into a named table") {
    AcceleratorSpec a = load_accelerator("small_8x8", {"energy=eyeriss_normalized"});
    CHECK(a.energy.name == "eyeriss_normalized");
    // The default table is inlined so a single entry can change; the rest stays.
    AcceleratorSpec b = load_accelerator("small_8x8", {"energy.dram.read.pj=1300"});
    CHECK(b.energy.name == "horowitz45");
    CHECK(b.energy.dram_read.pj == 1300);
    CHECK(b.energy.dram_write.pj == 1950);
    CHECK(fs::path(b.energy.source).filename() == "horowitz45.yaml");
    // A wider word needs a MAC entry, which an override can add.
    AcceleratorSpec c = load_accelerator("small_8x8", {"word_bits=64", "energy.mac.64=20"});
    CHECK(c.energy.mac.back() == std::pair<int, double>{64, 20.0});
  }
  SECTION("errors in overridden values are attributed to --set") {
    auto err = [&](const std::vector<std::string>& o) {
      return error_of([&] { load_accelerator("adagp_ws180", o); });
    };
    CHECK(err({"array.rows=0"}) == "--set array.rows: array.rows: must be in [1, 4096], got 0");
    CHECK(err({"dataflow=xs"}).find("--set dataflow: dataflow: must be one of ws, os, is, rs") ==
          0);
    CHECK(err({"noc.words=3"}).find("--set noc.words: noc.words: unknown key 'words'") == 0);
    CHECK(err({"energy.vector_op=-1"}) ==
          "--set energy.vector_op: energy.vector_op: must be >= 0, got -1");
    CHECK(err({"energy=nosuch"}).find("--set energy: energy: unknown energy table 'nosuch'") == 0);
    CHECK(err({"word_bits=64"})
              .find("energy: energy table 'horowitz45' has no MAC energy for "
                    "64-bit words") != std::string::npos);
  }
}
