#pragma once
// Calibration of the `gpu` device model (sim/devices/gpu_model.h) on measured per-op times and
// energies of a real GPU (sim/gpu/measured.h): its `fit:` parameters are fitted per precision,
// every row predicted, and the errors tabulated per kernel class, in-sample and leave-one-out
// (fit without one group's rows, predict them). docs/gpu.md explains each stage.
//
// A measured row is the mean of back-to-back calls from a Python loop, so the model's time of
// a row is max(host, device): the device time of the op's kernels (GpuModel::cost) unless the
// loop's host time per call is longer. The host time per call is fitted per kernel class (it is
// the measurement's, not the GPU's, and is not part of the device). The row's energy is the
// static power over that time plus the op's dynamic power over its device time.
//
// Stages, each a deterministic Nelder-Mead (sim/core/nelder_mead.h) from GpuFit's initial
// values minimising the sum of |log(model / measured)| (so the median row is matched, and the
// mean absolute percentage error is what it keeps small), per precision:
//   gemm:      launch_us, gemm_efficiency, gemm_tile_overhead, gemm_pipeline_depth,
//              split_k_min_depth, memory_efficiency and the host time of a MatMul call,
//              on the MatMul rows;
//   conv:      conv_forward, conv_backward_data, conv_backward_weight,
//              conv_weight_split_k_min_depth, conv_unaligned (fp32), conv_layout_traffic
//              and simt_* (16-bit), transform_efficiency and one transform_traffic for the
//              three passes (fp32), on the convolution rows; then the transforms' size
//              ranges, each bound searched over the rows' sizes with the rest fixed, twice,
//              refitting in between;
//   eltwise:   per element-wise class: bandwidth, words_per_ns and the host time of a call;
//              normalization_grad takes normalization's values and update map's (its bandwidth
//              scaled by 5/8: PyTorch's SGD with momentum runs three kernels that move 8 words
//              per parameter where trainsim's update op lists 5);
//   power:     busy_w, compute_w, memory_w, active_idle_w on the energies of the rows whose
//              energy moved and whose average power (joules / seconds) is within the board's
//              limit (NVML's counter gives some windows more than the 700 W the board can draw,
//              which no model of the board can follow), each row's |log| weighted by its time:
//              the energy of an iteration is made of its long ops, and a microsecond op's
//              energy is mostly the counter's noise;
//   host:      after both precisions, host_op_us (the framework's host time per op of a
//              training step, sim/gpu/iteration.h), one value for both, on the measured whole
//              iterations: only a host-bound one (DCGAN in bf16) determines it, and that
//              iteration is then no check of the device model.
// Leave-one-out: a convolution's network (alexnet, vgg16, resnet50) refits the conv stage; a
// MatMul group (grid, fc, bert) the gemm stage; each also refits the power stage without its
// rows.
#include <array>
#include <map>
#include <string>
#include <vector>

#include "sim/gpu/measured.h"

namespace trainsim {

struct GpuRowPrediction {
  double seconds = 0;  ///< max(host, device)
  double device_s = 0;
  double joules = 0;
  std::string algorithm;  ///< how the model ran it (GpuKernelChoice::algorithm)
  /// Leave-one-out: the row predicted by a fit without its group; NaN where not done.
  double lomo_seconds = std::numeric_limits<double>::quiet_NaN();
  double lomo_joules = std::numeric_limits<double>::quiet_NaN();
};

/// Mean absolute percentage errors of one precision and class.
struct GpuClassError {
  GpuPrecision precision = GpuPrecision::kFp32;
  std::string cls;  ///< "gemm", "conv", an element-wise class, or "all element-wise"
  int rows = 0, energy_rows = 0;
  double time_mape = 0, energy_mape = 0;
  /// NaN where the class has no leave-one-out.
  double time_lomo_mape = std::numeric_limits<double>::quiet_NaN();
  double energy_lomo_mape = std::numeric_limits<double>::quiet_NaN();
  /// Rows whose time the model puts on the device rather than the host loop, and their error.
  int device_rows = 0;
  double device_time_mape = 0;
  /// Rows whose measured average power is within the board's limit (static + dynamic_max), and
  /// their energy error: a window averaging more than the limit is a counter artifact.
  int plausible_energy_rows = 0;
  double plausible_energy_mape = 0;
};

struct GpuFitStage {
  GpuPrecision precision = GpuPrecision::kFp32;
  std::string name;  ///< "gemm", "conv", "eltwise <class>", "power"
  std::vector<std::string> params;
  double objective = 0;  ///< sum of |log ratios| at the fit
  int rows = 0;
};

struct GpuCalibrationResult {
  GpuSpec gpu;  ///< the fitted device, with a fit block for every precision measured
  std::vector<GpuPrecision> precisions;
  /// Per precision: the fitted host time of one call of each class's op in the measuring
  /// loop ("gemm" serves the convolutions too).
  std::array<std::map<std::string, double>, kNumGpuPrecisions> host_s;
  std::vector<GpuRowPrediction> rows;  ///< parallel to the measurements' ops
  std::vector<GpuClassError> errors;
  std::vector<GpuFitStage> stages;
};

struct GpuCalibrationOptions {
  bool leave_one_out = true;
  bool fit_host = true;  ///< the host stage (needs the iterations' networks in configs/)
};

/// Fits `gpu`'s parameters (its hardware figures as given, fit parameters from GpuFit's
/// initial values) on `data` for every precision it holds. UserError if a precision measured
/// has no peak on the device.
GpuCalibrationResult calibrate_gpu(const GpuSpec& gpu, const GpuMeasurements& data,
                                   const GpuCalibrationOptions& options = {});

/// The model's prediction of one measured row with the fitted `spec` (set to the row's
/// precision) and host time per call `host_s`.
GpuRowPrediction predict_gpu_row(const GpuSpec& spec, const GpuMeasuredOp& row, double host_s);

/// gpu_ops.csv: every row with its measurement, prediction and errors.
std::string gpu_calibration_csv(const GpuCalibrationResult& r, const GpuMeasurements& data);
/// The `fit:` block of a device file holding the fitted values of every precision measured.
std::string gpu_calibration_fit_yaml(const GpuCalibrationResult& r);

}  // namespace trainsim
