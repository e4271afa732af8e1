// `trainsim layer` through the real binary: agreement with every SCALE-Sim v2 reference row
// in tests/data/scalesim, the JSON report, cycle fidelity with a waveform, and bad input.
#include <catch2/catch.hpp>
#include <cmath>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "tests/integration/cli_runner.h"

using namespace trainsim::test;
using nlohmann::json;

namespace {

const std::string kRefs = std::string(TRAINSIM_SOURCE_DIR) + "/tests/data/scalesim/";

using Row = std::map<std::string, std::string>;

std::vector<Row> read_csv(const std::string& path) {
  if (!exists(path)) FAIL("cannot read " << path);
  return csv_rows(read_file(path));
}

json layer_json(const std::vector<std::string>& args) {
  std::vector<std::string> full{"layer"};
  full.insert(full.end(), args.begin(), args.end());
  full.push_back("--json");
  const CliResult r = run_trainsim(full);
  INFO("stderr: " << r.err);
  REQUIRE(r.exit_code == 0);
  return json::parse(r.out);
}

}  // namespace

TEST_CASE("trainsim layer agrees with every SCALE-Sim v2 reference row", "[cli][layer][scalesim]") {
  const auto results = read_csv(kRefs + "results.csv");
  const auto layers = read_csv(kRefs + "inputs/layers.csv");
  std::map<std::string, Row> layer_by_name;
  for (const Row& l : layers) layer_by_name[l.at("layer")] = l;
  REQUIRE(results.size() >= 100);
  std::size_t checked = 0;
  double worst = 0;
  for (const Row& row : results) {
    const Row& layer = layer_by_name.at(row.at("layer"));
    std::vector<std::string> args{"--accel",    "scalesim_default",
                                  "--dataflow", row.at("dataflow"),
                                  "--array",    row.at("array_rows") + "x" + row.at("array_cols")};
    if (layer.at("input_format") == "conv") {
      // SCALE-Sim has no padding: the reference folded it into the ifmap size.
      args.push_back("--conv");
      args.push_back(layer.at("ifmap_h") + "," + layer.at("ifmap_w") + "," + layer.at("channels") +
                     "," + layer.at("num_filt") + "," + layer.at("filt_h") + "," +
                     layer.at("filt_w") + "," + layer.at("stride") + ",0");
    } else {
      args.push_back("--gemm");
      args.push_back(row.at("M") + "," + row.at("N") + "," + row.at("K"));
    }
    const json j = layer_json(args);
    INFO(row.at("layer") << " " << row.at("array_rows") << "x" << row.at("array_cols") << " "
                         << row.at("dataflow"));
    REQUIRE(j.contains("scalesim"));
    for (const char* field :
         {"compute_cycles", "ifmap_sram_reads", "filter_sram_reads", "ofmap_sram_writes"}) {
      const double ours = j["scalesim"][field].get<double>();
      const double ref = std::stod(row.at(field));
      const double rel = std::abs(ours - ref) / std::max(1.0, ref);
      worst = std::max(worst, rel);
      INFO(field << ": trainsim " << ours << ", SCALE-Sim " << ref);
      CHECK(rel <= 0.01);
    }
    ++checked;
  }
  CHECK(checked == results.size());
  WARN("checked " << checked << " SCALE-Sim rows; worst relative difference " << worst);
}

TEST_CASE("trainsim layer reports cycles, accesses, DRAM and energy", "[cli][layer]") {
  const json j =
      layer_json({"--accel", "small_8x8", "--dataflow", "ws", "--conv", "28,28,128,256,3,3,1,1"});
  const json& s = j["stats"];
  CHECK(s["macs"].get<std::int64_t>() == 28LL * 28 * 256 * 1152);
  CHECK(s["cycles"].get<std::int64_t>() ==
        s["compute_cycles"].get<std::int64_t>() + s["stall_cycles"].get<std::int64_t>());
  CHECK(s["utilization"].get<double>() > 0.5);
  CHECK(s["utilization"].get<double>() <= 1.0);
  for (const char* level : {"rf", "noc", "buffer"}) CHECK(s[level]["ifmap"]["reads"] > 0);
  CHECK(s["dram_bytes"].get<std::int64_t>() > 0);
  CHECK(j["energy"]["total"].get<double>() > 0);
  CHECK(j["energy"]["dram"].get<double>() > 0);
  // Re-pricing with another table changes energy only.
  const json k = layer_json({"--accel", "small_8x8", "--dataflow", "ws", "--conv",
                             "28,28,128,256,3,3,1,1", "--set", "energy=eyeriss_normalized"});
  CHECK(k["stats"] == j["stats"]);
  CHECK(k["energy"]["unit"] == "normalized");
  CHECK(k["energy"]["mac"].get<double>() == Approx(s["macs"].get<double>()));
}

TEST_CASE("Cycle fidelity through the CLI matches fast and writes a waveform", "[cli][layer]") {
  const std::string dir = fresh_dir("layer-vcd");
  for (const char* df : {"ws", "os", "is", "rs"}) {
    const std::vector<std::string> base{"--accel", "small_8x8",       "--dataflow", df,
                                        "--conv",  "9,9,3,5,3,3,1,1", "--batch",    "2"};
    const json fast = layer_json(base);
    std::vector<std::string> cyc = base;
    cyc.insert(cyc.end(), {"--fidelity", "cycle", "--vcd", dir + "/" + df + ".vcd"});
    const json cycle = layer_json(cyc);
    INFO("dataflow " << df);
    CHECK(cycle["numeric_check"] == true);
    CHECK(cycle["stats"] == fast["stats"]);
    const std::string vcd = read_file(dir + "/" + df + ".vcd");
    CHECK(vcd.find("$enddefinitions") != std::string::npos);
    CHECK(vcd.find("active_pes") != std::string::npos);
  }
}

TEST_CASE("trainsim layer rejects bad input with exit code 2", "[cli][layer][errors]") {
  auto fails = [](const std::vector<std::string>& args, const std::string& mention) {
    std::vector<std::string> full{"layer"};
    full.insert(full.end(), args.begin(), args.end());
    const CliResult r = run_trainsim(full);
    INFO("args: " << full.size() << " stderr: " << r.err);
    CHECK(r.exit_code == 2);
    CHECK(line_count(r.err) == 1);
    CHECK(r.err.find(mention) != std::string::npos);
  };
  fails({"--accel", "small_8x8", "--gemm", "0,4,4"}, "M must be >= 1");
  fails({"--accel", "small_8x8", "--gemm", "4,-2,4"}, "N must be >= 1");
  fails({"--accel", "small_8x8", "--conv", "8,8,0,4,3,3"}, "C must be >= 1");
  fails({"--accel", "small_8x8", "--gemm", "4,4"}, "--gemm");
  fails({"--accel", "small_8x8", "--dataflow", "zz", "--gemm", "4,4,4"}, "unknown dataflow");
  fails({"--accel", "small_8x8", "--gemm", "64,64,64", "--set", "buffer.filter_kib=0.01"},
        "filter");
  fails({"--accel", "small_8x8", "--gemm", "4,4,4", "--set", "word_bits=64"}, "MAC");
  fails({"--accel", "no_such_accelerator", "--gemm", "4,4,4"}, "no_such_accelerator");
  fails({"--accel", "small_8x8", "--gemm", "4,4,4", "--vcd", "x.vcd"}, "--fidelity cycle");
  // The buffer mapping: a dimension the op does not have, a tile beyond the dimension, a
  // buffer no tile fits, an unknown memory model.
  fails(
      {"--accel", "small_8x8", "--gemm", "64,64,64", "--tile", "R=2"},
      "the buffer mapping of gemm fw M=64 N=64 K=64 has no dimension 'R' (its dimensions: N K M)");
  fails({"--accel", "small_8x8", "--conv", "8,8,4,4,3,3", "--tile", "C=5"}, "[1, 4]");
  fails({"--accel", "eyeriss_like", "--conv", "56,56,64,64,3,3,1,1", "--set", "buffer.kib=0.1"},
        "the 0.1 KiB global buffer of 'eyeriss_like'");
  fails({"--accel", "small_8x8", "--gemm", "4,4,4", "--memory", "lru"}, "unknown memory model");
  fails({"--accel", "small_8x8", "--conv", "8,8,4,6,3,3", "--groups", "4"},
        "--groups 4 must divide");
}

TEST_CASE("trainsim layer prints the buffer mapping and pins parts of it", "[cli][layer]") {
  const CliResult r =
      run_trainsim({"layer", "--accel", "eyeriss_like", "--conv", "27,27,96,256,5,5,1,2",
                    "--groups", "2", "--batch", "16", "--mapping"});
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("(one of 2 groups, run one after another)") != std::string::npos);
  CHECK(r.out.find("buffer mapping: ") != std::string::npos);
  CHECK(r.out.find("keeps ofmap partial sums in the buffer") != std::string::npos);
  CHECK(r.out.find("x the minimum") != std::string::npos);
  const json free = layer_json({"--accel", "eyeriss_like", "--conv", "27,27,96,256,5,5,1,2"});
  const json pinned = layer_json({"--accel", "eyeriss_like", "--conv", "27,27,96,256,5,5,1,2",
                                  "--tile", "N=1,K=22,C=2", "--stationary", "filter"});
  CHECK(free["memory"] == "tiled");
  CHECK(pinned["buffer_mapping"]["tile"]["K"] == 22);
  CHECK(pinned["buffer_mapping"]["tile"]["C"] == 2);
  CHECK(pinned["buffer_mapping"]["stationary"] == "filter");
  // The search minimises time: it finds a mapping at least as fast as this hand-pinned one.
  CHECK(pinned["stats"]["cycles"].get<std::int64_t>() >=
        free["stats"]["cycles"].get<std::int64_t>());
  const json scalesim = layer_json(
      {"--accel", "eyeriss_like", "--conv", "27,27,96,256,5,5,1,2", "--memory", "scalesim"});
  CHECK(scalesim["memory"] == "scalesim");
  CHECK_FALSE(scalesim.contains("buffer_mapping"));
  CHECK(scalesim["stats"]["dram_bytes"].get<std::int64_t>() >
        free["stats"]["dram_bytes"].get<std::int64_t>());
}

TEST_CASE("trainsim layer --bound prints each pass against its traffic bounds", "[cli][layer]") {
  // VGG-16's 8x8x128 -> 256 convolution at batch 32 on eyeriss_like (a 55,296-word buffer):
  // its communication bound is above the compulsory traffic.
  const json j = layer_json(
      {"--accel", "eyeriss_like", "--conv", "8,8,128,256,3,3,1,1", "--batch", "32", "--bound"});
  REQUIRE(j["bounds"].size() == 3);
  const char* passes[] = {"fw", "bwd-data", "bwd-weight"};
  for (int i = 0; i < 3; ++i) {
    const json& b = j["bounds"][static_cast<std::size_t>(i)];
    INFO(b.dump());
    CHECK(b["pass"] == passes[i]);
    CHECK(b["buffer_words"] == 55296);
    CHECK(b["compulsory_words"].get<double>() == 32 * 128 * 64 + 256 * 128 * 9 + 32 * 256 * 64);
    CHECK(b["bound_words"].get<double>() >= b["compulsory_words"].get<double>());
    CHECK(b["bound_words"].get<double>() >= b["communication_bound_words"].get<double>());
    CHECK(b["achieved_words"].get<double>() >= b["bound_words"].get<double>());
    CHECK(b["achieved_over_bound"].get<double>() ==
          Approx(b["achieved_words"].get<double>() / b["bound_words"].get<double>()));
  }
  // The forward pass's traffic is what the op reports.
  CHECK(j["bounds"][0]["achieved_words"].get<double>() ==
        j["stats"]["dram_bytes"].get<double>() / 2);
  const CliResult text = run_trainsim({"layer", "--accel", "eyeriss_like", "--conv",
                                       "8,8,128,256,3,3,1,1", "--batch", "32", "--bound"});
  REQUIRE(text.exit_code == 0);
  CHECK(text.out.find("DRAM traffic bounds") != std::string::npos);
  CHECK(text.out.find("bwd-weight") != std::string::npos);
}
