#pragma once
// One training iteration of a network priced on a GPU alone (a one-device system, gpu-only):
// trainsim's op stream of the iteration, as a framework on a GPU runs it (the op DAG of
// sim/hype/op_dag.h with BiasAdd and BiasAddGrad as ops of their own, in issue order), each op
// priced by the gpu device model, plus what mixed precision adds (autocast's casts of the
// weights to bf16 and of their gradients back). The ops run one after another on one stream;
// the host issues them at the framework's pace (GpuFit::host_op_us per op, PyTorch eager's
// Python and dispatch time), so an iteration of many small kernels is as long as its host
// time (DCGAN in bf16), one of large kernels as its device time:
//   issue_i = issue_(i-1) + host_op, start_i = max(issue_i, end_(i-1)), end_i = start_i + t_i
// Energy: static power over the whole iteration, each op's dynamic power over its time.
//
// For the measured iterations of tests/data/gpu_h100 (price_gpu_iterations), the per-op
// results come with a comparison by category against the measured kernel profile
// (model_ops.csv), whose ops carry PyTorch's aten names: gpu_aten_category() maps them.
#include <string>
#include <vector>

#include "sim/devices/gpu_model.h"
#include "sim/gpu/measured.h"
#include "sim/spec/specs.h"

namespace trainsim {

/// One op of the iteration as priced.
struct GpuIterationOp {
  std::string type;      ///< the paper's (TensorFlow's) op type, or "Cast"
  std::string category;  ///< "conv forward", "conv backward", "matmul", ... (as the profile's)
  std::string layer;     ///< the network layer's name
  Op op;
  GpuKernelChoice choice;
  OpCost cost;
  double start_s = 0;  ///< when the GPU starts it
};

struct GpuIterationResult {
  std::string model;    ///< "alexnet", "dcgan"
  std::string network;  ///< the configs/networks file priced
  GpuPrecision precision = GpuPrecision::kFp32;
  int batch = 0;
  double seconds = 0, joules = 0;
  double device_s = 0;  ///< the ops' times summed
  double host_s = 0;    ///< the host's issue time summed
  std::vector<GpuIterationOp> ops;
  /// Measured (price_gpu_iterations only; 0 otherwise).
  double measured_s = 0, measured_j = 0;
  std::string ops_csv;    ///< one line per op
  std::string types_csv;  ///< per category: model and profile (price_gpu_iterations only)
};

/// One iteration of `net` at `batch` with `optimizer`'s update on `gpu` at its precision.
GpuIterationResult price_gpu_iteration(const GpuSpec& gpu, const NetworkSpec& net, int batch,
                                       const OptimizerSpec& optimizer);

/// The network file that stands for a measured model: alexnet -> alexnet_imagenet, dcgan ->
/// dcgan64_gd_celeba; "" for others.
std::string gpu_iteration_network(const std::string& model);

/// Every measured iteration of `data` whose model has a network, priced on `gpu` (at the
/// iteration's precision; SGD with momentum 0.9, batch 256, as measured), with the per-category
/// comparison against the profile.
std::vector<GpuIterationResult> price_gpu_iterations(const GpuSpec& gpu,
                                                     const GpuMeasurements& data);

/// The category of a profiled op ("aten::cudnn_convolution" -> "conv forward"); "" for rows the
/// profile lists besides their aten op (kernels, the optimizer's step), which would count twice.
std::string gpu_aten_category(const GpuProfiledOp& op);

}  // namespace trainsim
