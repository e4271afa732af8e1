// Energy tables from Accelergy ERTs: configs/energy/eyeriss_ert.yaml reads Eyeriss'
// normalized costs from an ERT and prices ops exactly as eyeriss_normalized does; bad ERTs
// and maps name what is wrong.
#include <catch2/catch.hpp>

#include <fstream>
#include <string>

#include "dataflows/registry.h"
#include "sim/accel/accelerator_config.h"
#include "sim/accel/cost_model.h"
#include "sim/accel/energy.h"
#include "sim/core/error.h"
#include "sim/interop/accelergy_ert.h"
#include "tests/support/config_errors.h"
#include "tests/support/temp_dir.h"

using namespace trainsim;

TEST_CASE("An ERT with Eyeriss' costs prices ops exactly as eyeriss_normalized", "[energy][ert]") {
  const EnergyTable ert = load_energy_table("eyeriss_ert");
  const EnergyTable ref = load_energy_table("eyeriss_normalized");
  CHECK(ert.unit == "normalized");
  AcceleratorSpec a = load_accelerator("eyeriss_like"), b = a;
  a.energy = ert;
  b.energy = ref;
  const Dataflow& df = dataflow_or_throw(a.dataflow);
  for (const Op& op : {Op::make_conv({1, 96, 27, 27, 256, 5, 5, 1, 2}, OpRole::kForward),
                       Op::make_conv({4, 16, 14, 14, 32, 3, 3, 1, 1}, OpRole::kBackwardWeight),
                       Op::make_gemm({64, 120, 400}, OpRole::kBackwardData),
                       Op::make_eltwise({100000, 3, 1, 2}, OpRole::kUpdate)}) {
    Op o = op;
    o.word_bits = a.word_bits;
    const OpStats s = evaluate_op(o, a, df);
    const EnergyBreakdown ea = price(s, a), eb = price(s, b);
    INFO(o.describe());
    CHECK(ea.total() == eb.total());
    CHECK(ea.mac == eb.mac);
    CHECK(ea.rf == eb.rf);
    CHECK(ea.noc == eb.noc);
    CHECK(ea.buffer == eb.buffer);
    CHECK(ea.dram == eb.dram);
    CHECK(ea.vector == eb.vector);
    CHECK(ea.total() > 0);
  }
  CHECK(ert_component_base("system.chip.PE[0..167].mac") == "system.chip.PE.mac");
  CHECK(ert_component_base("a[0..1].b[2..3].c") == "a.b.c");
}

TEST_CASE("Bad ERTs and maps name what is wrong", "[energy][ert]") {
  test::TempDir dir("ert-errors");
  auto write = [&](const std::string& name, const std::string& text) {
    std::ofstream(dir / name) << text;
    return dir / name;
  };
  const std::string ert =
      "ERT:\n  version: '0.4'\n  tables:\n"
      "    - name: sys.PE[0..3].mac\n      actions: [{name: mac_random, energy: 1}]\n"
      "    - name: sys.spad\n      actions: [{name: read, energy: 1}, {name: write, energy: 1}]\n"
      "    - name: sys.glb\n      actions: [{name: read, energy: 6}, {name: write, energy: 6}]\n"
      "    - name: sys.dram\n      actions: [{name: read, energy: 200}, {name: write, energy: "
      "200}]\n";
  write("ERT.yaml", ert);
  write("ERT_extra.yaml", ert + "    - name: sys.mystery\n      actions: [{name: x, energy: 3}]\n");
  write("ERT_bad.yaml", "ERT: {tables: [{name: sys.x}]}\n");
  auto table = [&](const std::string& file, const std::string& mac, const std::string& extra = "") {
    return "unit: normalized\nert: " + file + "\nper_bits: 16\nmap:\n  mac: " + mac +
           "\n  rf_read: {component: sys.spad, action: read}\n"
           "  rf_write: {component: sys.spad, action: write}\n"
           "  noc: {component: sys.spad, action: read}\n"
           "  buffer_read: {component: sys.glb, action: read}\n"
           "  buffer_write: {component: sys.glb, action: write}\n"
           "  dram_read: {component: sys.dram, action: read}\n"
           "  dram_write: {component: sys.dram, action: write}\n"
           "  vector_op: {component: sys.spad, action: read}\n" +
           extra;
  };
  const std::string good_mac = "{component: sys.PE.mac, action: mac_random}";
  CHECK_NOTHROW(load_energy_table(write("good.yaml", table("ERT.yaml", good_mac))));
  CHECK(load_energy_table(dir.path() + "/good.yaml").dram_read.pj == 200);
  CHECK_THROWS_WITH(load_energy_table(write(
                        "c.yaml", table("ERT.yaml", "{component: sys.alu, action: mac_random}"))),
                    Catch::Contains("component 'sys.alu' is not in the ERT"));
  CHECK_THROWS_WITH(
      load_energy_table(write("a.yaml", table("ERT.yaml", "{component: sys.PE.mac, action: mac}"))),
      Catch::Contains("has no action 'mac'") && Catch::Contains("mac_random"));
  CHECK_THROWS_WITH(load_energy_table(write("u.yaml", table("ERT_extra.yaml", good_mac))),
                    Catch::Contains("ERT component 'sys.mystery' is not mapped"));
  CHECK_NOTHROW(load_energy_table(
      write("i.yaml", table("ERT_extra.yaml", good_mac, "ignore: [sys.mystery]\n"))));
  CHECK_THROWS_WITH(load_energy_table(write("b.yaml", table("ERT_bad.yaml", good_mac))),
                    Catch::Contains("ERT_bad.yaml") && Catch::Contains("actions"));
  CHECK_THROWS_WITH(
      load_energy_table(write(
          "m.yaml", table("ERT.yaml", good_mac) + "  fpu: {component: sys.spad, action: read}\n")),
      Catch::Contains("fpu"));
  CHECK_THROWS_AS(load_energy_table(write("n.yaml", table("nothing.yaml", good_mac))), UserError);
}

TEST_CASE("An ERT action listed twice is an error when a cost maps to it", "[energy][ert]") {
  test::TempDir dir("ert-duplicates");
  auto write = [&](const std::string& name, const std::string& text) {
    std::ofstream(dir / name) << text;
    return dir / name;
  };
  // Accelergy writes an action once per argument set; sys.dram's `read` has two energies here,
  // and sys.pe's `idle` two that no cost uses.
  const std::string text =
      "ERT:\n  version: '0.4'\n  tables:\n"
      "    - name: sys.pe\n      actions:\n        - {name: mac, energy: 1}\n"
      "        - {name: idle, energy: 0}\n        - {name: idle, energy: 0.1}\n"
      "    - name: sys.dram\n      actions:\n        - {name: read, energy: 200}\n"
      "        - {name: read, energy: 180}\n        - {name: write, energy: 200}\n";
  write("ERT.yaml", text);
  auto table = [&](const std::string& dram_read) {
    return "unit: normalized\nert: ERT.yaml\nper_bits: 16\nmap:\n"
           "  mac: {component: sys.pe, action: mac}\n"
           "  rf_read: {component: sys.pe, action: mac}\n"
           "  rf_write: {component: sys.pe, action: mac}\n"
           "  noc: {component: sys.pe, action: mac}\n"
           "  buffer_read: {component: sys.dram, action: write}\n"
           "  buffer_write: {component: sys.dram, action: write}\n"
           "  dram_read: {component: sys.dram, action: " +
           dram_read +
           "}\n"
           "  dram_write: {component: sys.dram, action: write}\n"
           "  vector_op: {component: sys.pe, action: mac}\n";
  };
  // The second `read` is named where it is, with the first one's line and the file.
  const std::string ert = dir.path() + "/ERT.yaml";
  const std::string msg =
      test::error_of([&] { load_energy_table(write("t.yaml", table("read"))); });
  test::check_error(msg, ert, test::pos_of(text, "read, energy: 180"),
                    "ERT.tables.1.actions.1.name",
                    "component 'sys.dram' lists action 'read' 2 times in the ERT " + ert +
                        " (first at line 11), and 'dram_read' maps to it");
  // A duplicate no cost maps to (`idle`) changes nothing.
  CHECK(load_energy_table(write("w.yaml", table("write"))).dram_read.pj == 200);
}
