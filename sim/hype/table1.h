#pragma once
// Table 1 of He et al., "Enabling Energy-Efficient DNN Training on Hybrid GPU-FPGA
// Accelerators" (Hype-training, ICS 2021): each profiled op's time and power on Stratix 10
// FPGAs and a V100 GPU, for a small, medium and large input, with the GPU's memory bandwidth
// use and IPC. Shipped as configs/devices/hype_table1.csv, transcribed as printed; the device
// models are calibrated against it (issue 17).
#include <string>
#include <vector>

#include "sim/devices/size_class.h"

namespace trainsim {

struct HypeTable1Row {
  std::string op;  ///< TensorFlow op type: MatMul, Conv2D, Conv2DBackpropFilter, ...
  SizeClass size = SizeClass::kSmall;
  double fpga_peak_w = 0, fpga_avg_w = 0, fpga_ms = 0;
  double gpu_peak_w = 0, gpu_avg_w = 0, gpu_ms = 0;
  double gpu_bw_gbps = 0, gpu_ipc = 0;
  std::string note;  ///< why a value looks wrong; empty for most rows
};

/// The shipped table: <configs root>/devices/hype_table1.csv.
std::string hype_table1_path();
/// The rows of the table at `path`, in file order. Lines starting with '#' are comments; the
/// first other line is the header. UserError "<path>:<line>: <what>" on a malformed file.
std::vector<HypeTable1Row> load_hype_table1(const std::string& path = hype_table1_path());

}  // namespace trainsim
