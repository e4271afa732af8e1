// SCALE-Sim in, SCALE-Sim out: the reference layers (tests/data/scalesim) as SCALE-Sim
// topology CSVs (conv and GEMM forms) with SCALE-Sim configs for every array and dataflow,
// through `trainsim layer --scalesim-topology --scalesim-config --report-dir`; the three
// reports carry SCALE-Sim v2's exact headers and its figures for every reference row.
#include <catch2/catch.hpp>

#include <fstream>
#include <map>
#include <sstream>

#include "tests/integration/cli_runner.h"
#include "tests/integration/scalesim_topologies.h"

using namespace trainsim;
using namespace trainsim::test;

namespace {

const std::string kRefs = std::string(TRAINSIM_SOURCE_DIR) + "/tests/data/scalesim/";

std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> out;
  std::string cell;
  std::istringstream in(line);
  while (std::getline(in, cell, ',')) {
    const auto a = cell.find_first_not_of(' ');
    out.push_back(a == std::string::npos ? "" : cell.substr(a));
  }
  return out;
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  std::string l;
  while (std::getline(in, l))
    if (!l.empty()) out.push_back(l);
  return out;
}

}  // namespace

TEST_CASE("SCALE-Sim topologies and configs give SCALE-Sim's reports and figures",
          "[cli][layer][scalesim]") {
  const std::string dir = fresh_dir("scalesim-io");
  const auto results = csv_rows(read_file(kRefs + "results.csv"));
  const ReferenceTopologies topo = write_reference_topologies(dir);
  std::map<std::string, std::map<std::string, std::string>> ref;  // key -> row
  for (const auto& r : results)
    ref[r.at("layer") + " " + r.at("array_rows") + " " + r.at("dataflow")] = r;

  std::size_t checked = 0;
  for (const char* array : {"8", "32"})
    for (const char* df : {"os", "ws", "is"}) {
      const std::string cfg_path = write_reference_config(dir, array, df);
      for (const auto& [form, names] : {std::make_pair(std::string("conv"), topo.conv_names),
                                        std::make_pair(std::string("gemm"), topo.gemm_names)}) {
        const std::string out = dir + "/" + form + "_" + array + "_" + df;
        const auto r = run_trainsim({"layer", "--scalesim-topology", dir + "/" + form + ".csv",
                                     "--scalesim-config", cfg_path, "--report-dir", out});
        INFO(r.err);
        REQUIRE(r.exit_code == 0);
        const auto compute = lines(read_file(out + "/COMPUTE_REPORT.csv"));
        const auto detail = lines(read_file(out + "/DETAILED_ACCESS_REPORT.csv"));
        const auto bandwidth = lines(read_file(out + "/BANDWIDTH_REPORT.csv"));
        CHECK(compute[0] ==
              "LayerID, Total Cycles, Stall Cycles, Overall Util %, Mapping Efficiency %, "
              "Compute Util %,");
        CHECK(bandwidth[0] ==
              "LayerID, Avg IFMAP SRAM BW, Avg FILTER SRAM BW, Avg OFMAP SRAM BW, Avg IFMAP "
              "DRAM BW, Avg FILTER DRAM BW, Avg OFMAP DRAM BW,");
        CHECK(detail[0].rfind("LayerID, SRAM IFMAP Start Cycle, SRAM IFMAP Stop Cycle, SRAM "
                              "IFMAP Reads, SRAM Filter Start Cycle",
                              0) == 0);
        REQUIRE(compute.size() == names.size() + 1);
        for (std::size_t i = 0; i < names.size(); ++i) {
          const auto it = ref.find(names[i] + " " + array + " " + df);
          if (it == ref.end()) continue;
          const auto& row = it->second;
          INFO(names[i] << " " << array << " " << df);
          const auto c = split(compute[i + 1]), d = split(detail[i + 1]);
          auto near = [](const std::string& ours, const std::string& theirs, double tol) {
            const double a = std::stod(ours), b = std::stod(theirs);
            return std::abs(a - b) <= tol * std::max(1.0, std::abs(b));
          };
          // The same 1% as the --gemm path's agreement test; most rows are exact.
          CHECK(near(c[1], row.at("compute_cycles"), 0.01));
          CHECK(near(c[3], row.at("overall_util_pct"), 0.01));
          CHECK(near(c[4], row.at("mapping_eff_pct"), 1e-4));
          CHECK(near(d[3], row.at("ifmap_sram_reads"), 0.01));
          CHECK(near(d[6], row.at("filter_sram_reads"), 0.01));
          CHECK(near(d[9], row.at("ofmap_sram_writes"), 0.01));
          ++checked;
        }
      }
    }
  CHECK(checked >= 100);
}

TEST_CASE("Bad SCALE-Sim inputs: one line, exit 2", "[cli][layer][scalesim][errors]") {
  const std::string dir = fresh_dir("scalesim-io-errors");
  write_file(dir + "/bad_header.csv", "Name, A, B,\nx, 1, 2,\n");
  write_file(dir + "/short_row.csv", "Layer, M, N, K,\nx, 4, 4,\n");
  write_file(dir + "/zero.csv", "Layer, M, N, K,\nx, 4, 0, 4,\n");
  write_file(dir + "/ok.csv", "Layer, M, N, K,\nx, 4, 4, 4,\n");
  write_file(dir + "/bad_df.cfg", "[architecture_presets]\nArrayHeight: 8\nDataflow : xs\n");
  write_file(dir + "/bad_rows.cfg", "[architecture_presets]\nArrayHeight: -8\n");
  write_file(dir + "/user.cfg", "[run_presets]\nInterfaceBandwidth: USER\n");
  write_file(dir + "/huge.csv", "Layer, M, N, K,\nx, 1073741824, 1073741824, 1073741824,\n");
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--scalesim-topology", dir + "/bad_header.csv"}, "not a SCALE-Sim topology header"},
      {{"--scalesim-topology", dir + "/short_row.csv"}, "short_row.csv:2: 3 fields"},
      {{"--scalesim-topology", dir + "/zero.csv"}, "zero.csv:2: N must be"},
      {{"--scalesim-topology", dir + "/nothing.csv"}, "cannot open"},
      {{"--scalesim-topology", dir + "/ok.csv", "--scalesim-config", dir + "/bad_df.cfg"},
       "bad_df.cfg:3: Dataflow must be os, ws or is"},
      {{"--scalesim-topology", dir + "/ok.csv", "--scalesim-config", dir + "/bad_rows.cfg"},
       "bad_rows.cfg:2: ArrayHeight"},
      {{"--scalesim-topology", dir + "/ok.csv", "--gemm", "4,4,4"}, "does not go with"},
      {{"--scalesim-topology", dir + "/ok.csv", "--scalesim-config", dir + "/user.cfg"},
       "USER is not modelled"},
      {{"--scalesim-topology", dir + "/huge.csv"}, "huge.csv:2: the layer is too large"},
  };
  for (const auto& [args, what] : cases) {
    std::vector<std::string> a = {"layer"};
    a.insert(a.end(), args.begin(), args.end());
    const auto r = run_trainsim(a);
    INFO(r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find(what) != std::string::npos);
    CHECK(line_count(r.err) == 1);
  }
}
