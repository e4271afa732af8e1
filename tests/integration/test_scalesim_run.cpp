// `trainsim run` with a SCALE-Sim topology as a shape-only network: every reference row is an
// independent layer whose forward op costs what `trainsim layer --scalesim-topology` says for
// the same row, and whose backward-data and backward-weight ops are the training GEMMs of
// that row (checked against the same command on topology rows of those GEMM shapes). Bad
// topologies are one line and exit 2, with no results directory.
#include <catch2/catch.hpp>

#include <map>
#include <sstream>

#include "tests/integration/cli_runner.h"
#include "tests/integration/scalesim_topologies.h"

using namespace trainsim::test;

namespace {

// One batch of one sample: SCALE-Sim has no batch, so batch 1 gives its shapes.
std::string experiment(const std::string& dir, const std::string& network) {
  const std::string path = dir + "/topology.yaml";
  write_file(path, "name: topology\nnumerics: none\nnetwork: " + network +
                       "\ndataset: {name: imagenet, train_limit: 1, test_limit: 1}\n"
                       "training: {epochs: 1, batch_size: 1}\naccelerator: scalesim_default\n");
  return path;
}

// The compute cycles `trainsim layer --scalesim-topology` prints for every row, in order
// (its table has them as integers; COMPUTE_REPORT.csv rounds large ones to 6 digits, as
// SCALE-Sim does). With CALC bandwidth they are the total cycles: no stalls.
std::vector<long long> layer_cycles(const std::string& out) {
  std::vector<long long> cycles;
  std::istringstream in(out);
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    std::istringstream cells(line);
    std::string name;
    long long c = 0;
    if (cells >> name >> c) cycles.push_back(c);
  }
  return cycles;
}

// The training GEMMs of a topology row as SCALE-Sim GEMM rows (M, N, K): a conv row's
// backward-data and backward-weight as trainsim lowers them to GEMMs (batch 1), a GEMM row's
// dA = dY B^T and dB = A^T dY.
struct RowGemms {
  std::string bwd_data, bwd_weight;
};
RowGemms training_gemms(const std::map<std::string, std::string>& l) {
  auto n = [&](const char* k) { return std::stoll(l.at(k)); };
  auto row = [](long long m, long long nn, long long k) {
    return std::to_string(m) + ", " + std::to_string(nn) + ", " + std::to_string(k) + ",";
  };
  if (l.at("input_format") == "gemm")
    return {row(n("M"), n("K"), n("N")), row(n("K"), n("N"), n("M"))};
  const long long h = n("ifmap_h"), w = n("ifmap_w"), r = n("filt_h"), s = n("filt_w"),
                  c = n("channels"), f = n("num_filt"), st = n("stride");
  const long long oh = (h - r) / st + 1, ow = (w - s) / st + 1;
  return {row(h * w, c, r * s * f), row(r * s * c, f, oh * ow)};
}

}  // namespace

TEST_CASE("trainsim run times a SCALE-Sim topology row by row as trainsim layer does",
          "[cli][run][scalesim]") {
  const std::string dir = fresh_dir("scalesim-run");
  const ReferenceTopologies topo = write_reference_topologies(dir);
  std::map<std::string, std::map<std::string, std::string>> refs;
  for (const auto& l : csv_rows(
           read_file(std::string(TRAINSIM_SOURCE_DIR) + "/tests/data/scalesim/inputs/layers.csv")))
    refs[l.at("layer")] = l;
  const std::string exp = experiment(dir, "{scalesim_topology: conv.csv}");
  std::size_t checked = 0;
  for (const char* array : {"8", "32"})
    for (const char* df : {"os", "ws", "is"}) {
      const std::string cfg = write_reference_config(dir, array, df);
      for (const auto& [file, names] : {std::make_pair(topo.conv, topo.conv_names),
                                        std::make_pair(topo.gemm, topo.gemm_names)}) {
        const std::string tag = file.substr(dir.size() + 1, 4) + "_" + array + "_" + df;
        INFO(tag);
        // The conv file through the experiment's `network:`, the GEMM file through the flag.
        std::vector<std::string> args = {
            "run", exp, "--scalesim-config", cfg, "-o", dir + "/run_" + tag, "-q"};
        if (file == topo.gemm) {
          args.push_back("--scalesim-topology");
          args.push_back(file);
        }
        const auto run = run_trainsim(args);
        INFO(run.err);
        REQUIRE(run.exit_code == 0);
        // The same rows through `trainsim layer`, and their training GEMMs as GEMM rows.
        std::string gemms = "Layer, M, N, K,\n";
        for (const auto& name : names) {
          const RowGemms g = training_gemms(refs.at(name));
          gemms += name + "_bd, " + g.bwd_data + "\n" + name + "_bw, " + g.bwd_weight + "\n";
        }
        write_file(dir + "/gemms_" + tag + ".csv", gemms);
        const auto fw =
            run_trainsim({"layer", "--scalesim-topology", file, "--scalesim-config", cfg});
        const auto bw = run_trainsim({"layer", "--scalesim-topology",
                                      dir + "/gemms_" + tag + ".csv", "--scalesim-config", cfg});
        REQUIRE(fw.exit_code == 0);
        REQUIRE(bw.exit_code == 0);
        const std::vector<long long> fw_cycles = layer_cycles(fw.out),
                                     bw_cycles = layer_cycles(bw.out);
        REQUIRE(fw_cycles.size() == names.size());
        REQUIRE(bw_cycles.size() == 2 * names.size());

        // name -> role -> cycles of the one simulated training batch.
        std::map<std::string, std::map<std::string, long long>> ops;
        std::map<std::string, int> roles;
        for (const auto& r : csv_rows(read_file(dir + "/run_" + tag + "/batch_layers.csv"))) {
          if (r.at("phase") != "train") continue;
          CHECK(r.at("ops") == "1");
          CHECK(r.at("stall_cycles") == "0");
          ops[r.at("name")][r.at("role")] = std::stoll(r.at("cycles"));
          ++roles[r.at("role")];
        }
        // Sources and the sink cost nothing; there is no loss op.
        CHECK(ops.size() == names.size());
        CHECK(roles.count("act-grad") == 0);
        for (std::size_t i = 0; i < names.size(); ++i) {
          INFO(names[i]);
          const auto& row = ops[names[i]];
          CHECK(row.size() == 4);  // fw, bwd-data, bwd-weight, update
          CHECK(row.count("update") == 1);
          CHECK(row.at("fw") == fw_cycles[i]);
          CHECK(row.at("bwd-data") == bw_cycles[2 * i]);
          CHECK(row.at("bwd-weight") == bw_cycles[2 * i + 1]);
          ++checked;
        }
      }
    }
  CHECK(checked == 6 * (topo.conv_names.size() + topo.gemm_names.size()));
}

TEST_CASE("A SCALE-Sim topology run reads back from its config.resolved.yaml",
          "[cli][run][scalesim]") {
  const std::string dir = fresh_dir("scalesim-run-resolved");
  const ReferenceTopologies topo = write_reference_topologies(dir);
  const std::string exp = experiment(dir, "{scalesim_topology: gemm.csv}");
  const auto first =
      run_trainsim({"run", exp, "--scalesim-config", write_reference_config(dir, "8", "is"), "-o",
                    dir + "/first", "-q"});
  INFO(first.err);
  REQUIRE(first.exit_code == 0);
  // validate takes the same flags and checks what the run would do.
  const auto check = run_trainsim({"validate", exp, "--scalesim-topology", topo.conv,
                                   "--scalesim-config", write_reference_config(dir, "32", "os")});
  INFO(check.err);
  CHECK(check.exit_code == 0);
  CHECK(check.out.find("ok: network conv (") != std::string::npos);
  CHECK(check.out.find("(32x32, os)") != std::string::npos);
  const auto again =
      run_trainsim({"run", dir + "/first/config.resolved.yaml", "-o", dir + "/again", "-q"});
  INFO(again.err);
  REQUIRE(again.exit_code == 0);
  for (const char* f : {"epochs.csv", "phases.csv", "batch_layers.csv"})
    CHECK(read_file(dir + "/first/" + f) == read_file(dir + "/again/" + f));
  // The same configuration but for where the results went.
  auto resolved = [&](const std::string& run) {
    std::string text = read_file(dir + "/" + run + "/config.resolved.yaml");
    return text.substr(0, text.find("output:"));
  };
  CHECK(resolved("first") == resolved("again"));
}

TEST_CASE("Bad SCALE-Sim topologies for trainsim run: one line, exit 2, no results",
          "[cli][run][scalesim][errors]") {
  const std::string dir = fresh_dir("scalesim-run-errors");
  const std::string conv_header =
      "Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter Width, Channels, Num Filter, "
      "Strides,\n";
  write_file(dir + "/ok.csv", "Layer, M, N, K,\nx, 4, 4, 4,\n");
  write_file(dir + "/short_row.csv", "Layer, M, N, K,\nx, 4, 4, 4,\ny, 4, 4,\n");
  write_file(dir + "/columns.csv", "Layer, M, N, Q, K,\nx, 4, 4, 4, 4,\n");
  write_file(dir + "/filter.csv", conv_header + "c1, 8, 8, 9, 3, 1, 4, 1,\n");
  write_file(dir + "/twice.csv",
             conv_header + "c1, 8, 8, 3, 3, 1, 4, 1,\nc1, 8, 8, 3, 3, 1, 4, 1,\n");
  write_file(dir + "/kernel.csv", conv_header + "c1, 5000, 5000, 5000, 1, 1, 1, 1,\n");
  write_file(dir + "/big.csv", conv_header + "c1, 1024, 1024, 3, 3, 1024, 1024, 1,\n");
  write_file(dir + "/user.cfg", "[run_presets]\nInterfaceBandwidth: USER\n");
  const std::string out = dir + "/out";
  auto run = [&](const std::string& network, std::vector<std::string> extra) {
    std::vector<std::string> args = {"run", experiment(dir, network), "-o", out, "-q"};
    args.insert(args.end(), extra.begin(), extra.end());
    return run_trainsim(args);
  };
  const std::vector<
      std::pair<std::pair<std::string, std::vector<std::string>>, std::vector<std::string>>>
      cases = {
          {{"{scalesim_topology: nothing.csv}", {}},
           {"topology.yaml:3:30: network.scalesim_topology", "nothing.csv' not found"}},
          {{"{scalesim_topology: ok.csv, layers: []}", {}}, {"network.layers: unknown key"}},
          {{"{scalesim_topology: ok.csv}", {"--scalesim-topology", dir + "/short_row.csv"}},
           {"short_row.csv:3: 3 fields, the header has 4"}},
          {{"{scalesim_topology: columns.csv}", {}},
           {"columns.csv:1: not a SCALE-Sim topology header"}},
          {{"{scalesim_topology: filter.csv}", {}},
           {"filter.csv:2: the filter is larger than the ifmap"}},
          {{"{scalesim_topology: twice.csv}", {}},
           {"twice.csv:3: layer name 'c1' is used twice (also line 2)"}},
          {{"{scalesim_topology: kernel.csv}", {}},
           {"kernel.csv:2: Filter Height 5000 is more than a network layer takes (4096)"}},
          {{"{scalesim_topology: big.csv}", {}},
           {"big.csv): layer 'c1' (conv2d): forms", "(2^36)"}},
          {{"{scalesim_topology: ok.csv}", {"--scalesim-config", dir + "/user.cfg"}},
           {"user.cfg:2: InterfaceBandwidth: USER is not modelled"}},
          {{"{scalesim_topology: ok.csv}", {"--scalesim-topology", dir + "/none.csv"}},
           {"none.csv: cannot open the SCALE-Sim topology file"}},
          {{"{scalesim_topology: ok.csv}", {"--scalesim-config", dir + "/none.cfg"}},
           {"none.cfg: cannot open the SCALE-Sim config file"}},
          {{"{scalesim_topology: ok.csv}", {"-s", "numerics=float", "-s", "dataset.name=mnist"}},
           {"layer 'x.ifmap' (source) can only be timed"}},
          {{"{scalesim_topology: ok.csv}",
            {"-s", "system={devices: 2}", "-s", "pipeline={micro_batches: 1}"}},
           {"system: a network that ends in a sink", "runs on one device"}},
      };
  for (const auto& [input, mentions] : cases) {
    INFO(input.first);
    require_clean_failure(run(input.first, input.second), out, mentions);
  }
}
