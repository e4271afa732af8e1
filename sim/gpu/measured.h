#pragma once
// Measured per-op times and energies of a real GPU (tests/data/gpu_h100/, written by its
// gpu_ref.py): the rows the `gpu` device model is fitted on and compared with
// (sim/gpu/calibration.h). Each row becomes the op trainsim would issue for it, so that the
// model prices exactly what it prices in a training step: a MatMul its GEMM, a convolution pass
// its conv op in that role, an element-wise op an op of its kernel class (EltwiseKernel) whose
// tensors are the ones the measured op reads and writes, as trainsim's lowering lists them.
//
// Files (a directory holds them under these names; columns may come in any order, extra ones
// are ignored, a missing one is an error):
//   matmul.csv       op, precision, mkn, seconds, joules
//   conv.csv         op, precision, layer, input, filter, stride, pad, output, seconds, joules
//   elementwise.csv  op, precision, elements, seconds, joules
//   models.csv       model, precision, seconds_per_iter, joules_per_iter
//   model_ops.csv    model, precision, op, calls, device_us, input_shapes
#include <string>
#include <vector>

#include "sim/devices/gpu_model.h"
#include "sim/workload/op.h"

namespace trainsim {

/// What a measured op is priced as: a GEMM, a convolution pass, or an element-wise kernel class.
struct GpuOpClass {
  enum class Kind : std::uint8_t { kGemm, kConv, kEltwise };
  Kind kind = Kind::kGemm;
  EltwiseKernel eltwise = EltwiseKernel::kMap;
  std::string name() const;  ///< "gemm", "conv", or the EltwiseKernel's name
};

/// The kernel class of a measured op name (MatMul, Conv2D, Relu, FusedBatchNorm, ...); false if
/// it has none.
bool gpu_op_class(const std::string& op, GpuOpClass& cls);
/// Every measured op name that has a class, comma-separated (for messages).
std::string gpu_op_names();

struct GpuMeasuredOp {
  std::string where;  ///< "<file>:<line>"
  std::string op;     ///< the file's op name
  GpuPrecision precision = GpuPrecision::kFp32;
  GpuOpClass cls;
  /// What leave-one-out leaves out together: a convolution's network (alexnet, vgg16,
  /// resnet50); a MatMul's source (grid: Table 1's size classes; fc: AlexNet's and VGG-16's
  /// classifier GEMMs; bert: BERT-Large's); an element-wise op's name.
  std::string group;
  std::string label;  ///< the layer or shape, for tables
  Op model_op;
  double seconds = 0;
  double joules = 0;  ///< 0: the energy counter did not move (left out of energy fits)
};

struct GpuMeasuredIteration {
  std::string model;  ///< "alexnet", "dcgan"
  GpuPrecision precision = GpuPrecision::kFp32;
  double seconds = 0, joules = 0;
};

/// One row of a kernel profile: PyTorch's name for the op and its device time.
struct GpuProfiledOp {
  std::string model;
  GpuPrecision precision = GpuPrecision::kFp32;
  std::string op;  ///< "aten::cudnn_convolution", or a kernel's name
  int calls = 0;
  double device_us = 0;
  std::string input_shapes;
};

struct GpuMeasurements {
  std::string dir;
  std::vector<GpuMeasuredOp> ops;  ///< matmul.csv, conv.csv, elementwise.csv in file order
  std::vector<GpuMeasuredIteration> iterations;
  std::vector<GpuProfiledOp> profile;
};

/// The measurements in `dir`. UserError "<file>:<line>: <what>" on a malformed file, a missing
/// column, an op name without a kernel class, a shape that does not add up.
GpuMeasurements load_gpu_measurements(const std::string& dir);

}  // namespace trainsim
