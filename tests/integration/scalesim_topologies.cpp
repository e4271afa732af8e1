#include "tests/integration/scalesim_topologies.h"

#include "tests/integration/cli_runner.h"

namespace trainsim::test {

namespace {
const std::string kInputs = std::string(TRAINSIM_SOURCE_DIR) + "/tests/data/scalesim/inputs/";
}  // namespace

ReferenceTopologies write_reference_topologies(const std::string& dir) {
  ReferenceTopologies t;
  // Both of SCALE-Sim's forms, with its header rows and trailing commas.
  std::string conv =
      "Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter Width, "
      "Channels, Num Filter, Strides,\n";
  std::string gemm = "Layer, M, N, K,\n";
  for (const auto& l : csv_rows(read_file(kInputs + "layers.csv"))) {
    if (l.at("input_format") == "conv") {
      conv += l.at("layer") + ", " + l.at("ifmap_h") + ", " + l.at("ifmap_w") + ", " +
              l.at("filt_h") + ", " + l.at("filt_w") + ", " + l.at("channels") + ", " +
              l.at("num_filt") + ", " + l.at("stride") + ",\n";
      t.conv_names.push_back(l.at("layer"));
    } else {
      gemm += l.at("layer") + ", " + l.at("M") + ", " + l.at("N") + ", " + l.at("K") + ",\n";
      t.gemm_names.push_back(l.at("layer"));
    }
  }
  t.conv = dir + "/conv.csv";
  t.gemm = dir + "/gemm.csv";
  write_file(t.conv, conv);
  write_file(t.gemm, gemm);
  return t;
}

std::string write_reference_config(const std::string& dir, const std::string& array,
                                   const std::string& dataflow) {
  std::string cfg = read_file(kInputs + "example_32x32_ws.cfg");
  for (const std::string key : {"ArrayHeight:    32", "ArrayWidth:     32"})
    cfg.replace(cfg.find(key), key.size(), key.substr(0, key.find(':') + 1) + " " + array);
  cfg.replace(cfg.find("Dataflow : ws"), 13, "Dataflow : " + dataflow);
  const std::string path = dir + "/" + array + "_" + dataflow + ".cfg";
  write_file(path, cfg);
  return path;
}

}  // namespace trainsim::test
