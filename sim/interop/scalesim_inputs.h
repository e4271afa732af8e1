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

#include "sim/spec/accel_spec.h"
#include "sim/spec/specs.h"
#include "sim/workload/op.h"

namespace trainsim {

struct ScaleSimLayer {
  std::string name;
  Op op;
  int line = 0;  ///< of the topology file, for messages
};

/// The layers of a topology file; UserError naming file:line for anything malformed.
std::vector<ScaleSimLayer> read_scalesim_topology(const std::string& path);

/// A topology file as a shape-only network for `trainsim run` (docs/interop.md). Its rows do
/// not chain (each has its own ifmap), so every row is an independent branch:
///   source `<row>.ifmap` (the row's ifmap: C x H x W; a GEMM row's A as K x M x 1)
///   -> conv2d `<row>` (its filters, stride, no padding, no bias; a GEMM row a 1x1
///      convolution with N filters, so the batch multiplies M as it multiplies a conv row's
///      output pixels)
/// and one `sink` takes every row's output. Each row is thus timed as a layer inside a larger
/// model: forward, backward-data (its source wants the gradient), backward-weight and the
/// update; no loss op, the output gradients come from outside. UserError naming file:line for
/// a malformed row, for sizes a network layer cannot take and for a repeated layer name.
NetworkSpec scalesim_topology_network(const std::string& path);

/// `base` (an accelerator with memory: scalesim) with the config's array, dataflow, SRAM sizes
/// and bandwidth; UserError naming file:line for an unknown dataflow, a missing or bad value.
/// `dataflow`, if given, receives the config's Dataflow ("" if it names none).
AcceleratorSpec apply_scalesim_config(const std::string& path, AcceleratorSpec base,
                                      std::string* dataflow = nullptr);

}  // namespace trainsim
