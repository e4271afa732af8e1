#pragma once
// The SCALE-Sim reference layers (tests/data/scalesim/inputs/layers.csv) as SCALE-Sim
// topology files and configs, for the tests that feed them to the real binary
// (`trainsim layer --scalesim-topology`, `trainsim run --scalesim-topology`).
#include <string>
#include <vector>

namespace trainsim::test {

struct ReferenceTopologies {
  std::string conv, gemm;                           ///< paths of the two files
  std::vector<std::string> conv_names, gemm_names;  ///< their rows, in order
};

/// Writes DIR/conv.csv (the conv-form rows) and DIR/gemm.csv (the GEMM-form rows).
ReferenceTopologies write_reference_topologies(const std::string& dir);

/// Writes DIR/<array>_<dataflow>.cfg: the reference config (inputs/example_32x32_ws.cfg) with
/// an array x array PE array and the dataflow; returns its path.
std::string write_reference_config(const std::string& dir, const std::string& array,
                                   const std::string& dataflow);

}  // namespace trainsim::test
