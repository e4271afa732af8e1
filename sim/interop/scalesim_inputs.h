#pragma once
// SCALE-Sim's inputs, read as SCALE-Sim v2 / v3 read them, so its users can run their files
// through trainsim (`trainsim layer --scalesim-topology FILE.csv --scalesim-config FILE.cfg`):
//   topology CSV, conv form:  Layer name, IFMAP Height, IFMAP Width, Filter Height,
//                             Filter Width, Channels, Num Filter, Strides,
//   topology CSV, GEMM form:  Layer, M, N, K,   (A = M x K ifmap times B = K x N filter)
//   config (.cfg, INI):       [architecture_presets] ArrayHeight, ArrayWidth,
//                             IfmapSramSzkB, FilterSramSzkB, OfmapSramSzkB, Dataflow,
//                             Bandwidth; [run_presets] InterfaceBandwidth (CALC / USER)
// Every layer becomes a forward op (no padding: SCALE-Sim folds it into the ifmap size).
#include <string>
#include <vector>

#include "sim/accel/accel_spec.h"
#include "sim/workload/op.h"

namespace trainsim {

struct ScaleSimLayer {
  std::string name;
  Op op;
};

/// The layers of a topology file; UserError naming file:line for anything malformed.
std::vector<ScaleSimLayer> read_scalesim_topology(const std::string& path);

/// `base` (an accelerator with memory: scalesim) with the config's array, dataflow, SRAM sizes
/// and bandwidth; UserError naming file:line for an unknown dataflow, a missing or bad value.
AcceleratorSpec apply_scalesim_config(const std::string& path, AcceleratorSpec base);

}  // namespace trainsim
