#pragma once
// An analytic GPU that prices each op as the kernel a framework (PyTorch with cuBLAS and cuDNN)
// launches for it, checked against per-op measurements of an H100 (docs/gpu.md) and fitted on
// Hype-training's V100 Table 1 (docs/hype.md). Every formula is derived in docs/gpu.md; in short:
//
// GEMM engine (MatMul; every convolution algorithm's inner product). The output of an M x N x K
// GEMM is cut into tiles of tm x tn results, one thread block per tile and per split of the
// reduction (split-K when the tiles cannot fill the SMs); blocks run in waves of one per SM:
//   t = launch + max(waves(tile, s) x 2 tm tn (ceil(K/s) + k0) / (P_sm eta e(tile)) + t_reduce,
//                    B / (BW beta))
//   e(tile) = 1 / (1 + c (tm + tn) / (tm tn))   (operand loads per multiply-add of a tile)
// minimised over the tile shapes the libraries ship and the splits (as their heuristics do).
// k0 is the pipeline's fill and drain per block, in reduction steps; the split's partial sums
// are written and read once more (t_reduce). P_sm is the per-SM peak of the precision: the
// tensor cores for fp16 and bf16 (channels a multiple of 8, else the CUDA cores at the fp32
// peak), the CUDA cores for fp32.
//
// Convolutions, per pass (forward, backward-data, backward-weight), as cuDNN with benchmark
// mode runs them: the fastest of the algorithm classes that apply, each timed on the engine
//   implicit GEMM:  fw (B Ho Wo, F, C R S), bwd-data (B H W, C, F R S / stride^2),
//                   bwd-weight (F, C R S, B Ho Wo), scaled by the pass's efficiency
//   col2im:         bwd-data as (B Ho Wo, C R S, F) and the columns added into dX
//   transform:      Winograd/FFT on the CUDA cores (stride 1, 3x3 or 5x5, a spatial size the
//                   pass's range admits): (m + r - 1)^2 GEMMs over m x m output tiles plus
//                   the transformed tiles' traffic
//   NCHW GEMM:      16-bit, 1x1, stride 1, H W a multiple of 8 (16-byte rows): per-image
//                   GEMMs on the NCHW tensors, no transposes
// and, for 16-bit precisions on the tensor cores, the NCHW <-> NHWC layout passes cuDNN's
// tensor-core convolution kernels need.
//
// Element-wise ops: per kernel class (EltwiseKernel), t = launch + max(bytes / (BW bw_class),
// words / rate_class): a bandwidth roof and an instruction roof (pooling and normalisation run
// no faster in bf16 than in fp32).
//
// Power: static + min(dynamic_max, busy + compute u_c + memory u_m), u_c and u_m the op's
// shares of the compute peak and of the bandwidth; peak = average + peak_over_average_w (capped).
// An IPC-like figure for Hype-training's thresholds: ipc_max min(1, u_c / eta + ipc_memory u_m).
#include <array>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "sim/devices/device_model.h"

namespace trainsim {

/// The number format GEMMs and convolutions run in. fp16 and bf16 run on the tensor cores.
enum class GpuPrecision : std::uint8_t { kFp32, kFp16, kBf16 };
inline constexpr int kNumGpuPrecisions = 3;
const char* gpu_precision_name(GpuPrecision p);  ///< "fp32", "fp16", "bf16"
bool parse_gpu_precision(const std::string& text, GpuPrecision& p);
int gpu_precision_bytes(GpuPrecision p);  ///< 4, 2, 2

/// An element-wise kernel class's two roofs.
struct GpuEltwiseFit {
  double bandwidth = 0.8;      ///< share of the memory bandwidth it reaches, (0, 1]
  double words_per_ns = 2000;  ///< values (read or written) it processes per ns at most
};

/// The fitted parameters of one precision (`fit: {<precision>: ...}` in a device file). The
/// defaults are the calibrations' initial values (docs/gpu.md).
struct GpuFit {
  double launch_us = 3;  ///< a kernel's launch and ramp on the device
  /// The host's time to issue one op of a training step (a framework's Python and dispatch
  /// work), for iterations priced as a stream (sim/gpu/iteration.h); the device model's
  /// per-op costs do not include it.
  double host_op_us = 0;
  // GEMM engine.
  double gemm_efficiency = 0.8;     ///< eta: share of the per-SM peak a large tile sustains
  double gemm_tile_overhead = 16;   ///< c of e(tile)
  double gemm_pipeline_depth = 32;  ///< k0: fill and drain per block, in reduction steps
  double split_k_min_depth = 128;   ///< least reduction per split
  double memory_efficiency = 0.9;   ///< beta: share of the bandwidth a streaming kernel reaches
  // Convolutions.
  double conv_forward = 0.8;  ///< implicit-GEMM efficiency of each pass, relative to eta
  double conv_backward_data = 0.7;
  double conv_backward_weight = 0.6;
  /// Least reduction per segment of a weight gradient, whose splits may span several waves
  /// (cuDNN's segment-K wgrad kernels), where a GEMM's fill one.
  double conv_weight_split_k_min_depth = 1000;
  /// Efficiency factor of a CUDA-core implicit GEMM whose channels are not a multiple of 4:
  /// its gathers cannot use 16-byte vector loads (an RGB input's stem convolution).
  double conv_unaligned = 1;
  double conv_layout_traffic = 1;  ///< 16-bit: NCHW <-> NHWC passes over input and output
  /// 16-bit: time of the 1x1 convolutions run as GEMMs on NCHW tensors to stream their bytes,
  /// relative to beta's bandwidth (fitted on ResNet-50's aligned 1x1 layers, the only rows
  /// bound by their traffic).
  double nchw_traffic = 1;
  /// 16-bit: speed of cuDNN's CUDA-core convolution kernels (channels or filters not a
  /// multiple of 8: an RGB stem), per pass, relative to fp32's kernels of the same shape, whose
  /// GEMM and convolution parameters they otherwise use. Not 1: they compute on packed 16-bit
  /// pairs (the H100's non-tensor bf16 peak is twice its fp32 one, NVIDIA's H100 whitepaper)
  /// and move half the bytes, and each pass's kernel gains differently (docs/gpu.md).
  double simt_forward = 1, simt_backward_data = 1, simt_backward_weight = 1;
  /// m of the transforms, output tiles of m x m: cuDNN's Winograd F(4x4, 3x3) and F(5x5, 5x5)
  /// (its kernel "winograd...9x9_5x5" in the H100's profile); kept, not fitted (fitted, the 5x5
  /// one follows AlexNet's conv2 alone and the other rows get worse, docs/gpu.md).
  double transform_tile_3x3 = 4;
  double transform_tile_5x5 = 5;
  double transform_efficiency = 1;       ///< the transformed GEMMs' efficiency, relative to eta
  double transform_traffic_forward = 1;  ///< traffic of the transformed tiles, per pass
  double transform_traffic_backward_data = 1;
  double transform_traffic_backward_weight = 1;
  /// Output sizes (Ho; H for backward-data) at which cuDNN runs the transform per pass, a
  /// closed range; min > max: never.
  double transform_forward_min = 0, transform_forward_max = kNoLimit;
  double transform_backward_data_min = 0, transform_backward_data_max = kNoLimit;
  double transform_backward_weight_min = 0, transform_backward_weight_max = kNoLimit;
  // Element-wise kernels, by EltwiseKernel.
  std::array<GpuEltwiseFit, kNumEltwiseKernels> eltwise{};
  // Power.
  double busy_w = 100;  ///< dynamic power of a busy GPU beyond its static power
  /// Power beyond static between kernels while the GPU is in use (clocks up, nothing
  /// running): what a host-bound stream of ops draws in its gaps.
  double active_idle_w = 50;
  double compute_w = 400;  ///< ... per share of the compute peak
  double memory_w = 150;   ///< ... per share of the bandwidth
  double peak_over_average_w = 6;
  double ipc_max = 5.764;
  double ipc_memory = 0.25;

  static constexpr double kNoLimit = std::numeric_limits<double>::infinity();
};

/// One parameter of GpuFit as a device file names it ("gemm_efficiency",
/// "elementwise.pooling.bandwidth") and how it is searched and checked.
struct GpuFitParameter {
  enum class Range : std::uint8_t { kFraction, kPositive, kNonNegative, kSize };
  std::string key;
  double* value;
  Range range;
};
/// Every parameter of `f`, in the device files' order.
std::vector<GpuFitParameter> gpu_fit_parameters(GpuFit& f);
/// `f` as the `fit: <precision>:` block of a device file, indented by `indent` spaces.
std::string gpu_fit_yaml(const GpuFit& f, int indent);

struct GpuSpec final : DeviceModelSpec {
  double clock_mhz = 0;  ///< the clock the peaks are quoted at
  int sm_count = 0;
  double memory_gbps = 0;
  /// Dense peak TFLOP/s per precision (0: the GPU has none).
  std::array<double, kNumGpuPrecisions> peak_tflops{};
  GpuPrecision precision = GpuPrecision::kFp32;  ///< what GEMMs and convolutions run in
  double static_w = 0;
  double dynamic_max_w = 0;
  /// Per precision; a precision without a block uses GpuFit's defaults.
  std::array<GpuFit, kNumGpuPrecisions> fits{};
  std::array<bool, kNumGpuPrecisions> has_fit{};

  std::unique_ptr<DeviceModel> build() const override;
  std::string figures() const override;
  const GpuFit& fit() const { return fits[static_cast<std::size_t>(precision)]; }
  GpuFit& fit() { return fits[static_cast<std::size_t>(precision)]; }
  double peak(GpuPrecision p) const { return peak_tflops[static_cast<std::size_t>(p)]; }
  int word_bytes() const { return gpu_precision_bytes(precision); }
  bool tensor() const { return precision != GpuPrecision::kFp32; }
  /// The same device running in `p` (its peak must be given).
  GpuSpec with_precision(GpuPrecision p) const;
};

/// How the model ran an op: the algorithm class and, for GEMM-shaped ones, the tile and split.
struct GpuKernelChoice {
  /// "gemm", "implicit_gemm", "col2im", "transform", "nchw_gemm", an EltwiseKernel's name
  std::string algorithm;
  int tile_m = 0, tile_n = 0, splits = 0;
  /// Thread blocks the kernel launches (tiles x splits; an element-wise kernel's values over
  /// the values a block takes): with the SMs, its share of the GPU (OpCost::occupancy).
  double blocks = 0;
  double compute_s = 0, memory_s = 0;  ///< the two roofs (layout passes in memory_s)
  bool tensor_cores = false;
};

class GpuModel final : public DeviceModel {
 public:
  explicit GpuModel(const GpuSpec& spec) : spec_(spec) {}
  const std::string& name() const override { return spec_.name; }
  const std::string& kind() const override { return spec_.kind; }
  double static_w() const override { return spec_.static_w; }
  int word_bytes() const override { return spec_.word_bytes(); }
  OpCost cost(const Op& op) override;
  /// cost() and how the op ran.
  OpCost cost(const Op& op, GpuKernelChoice& choice) const;
  /// The compute roofs scale with the clock, the memory roof and the launch time do not; the
  /// dynamic power (and the peak's margin over the average) scale by scale^gamma.
  std::unique_ptr<DeviceModel> at_clock(double scale, double gamma) const override;
  const GpuSpec& spec() const { return spec_; }

 private:
  GpuSpec spec_;
};

/// Whether convolution `c` can run on `s` as GEMMs on its NCHW tensors, without the tensor
/// cores' layout passes: a 1x1 filter at stride 1 on the tensor cores, whose H x W positions
/// fill whole 16-byte rows (gpu_model.cpp, "nchw_gemm").
bool gpu_conv_runs_nchw(const GpuSpec& s, const ConvShape& c);

/// The bytes a GPU moves for element-wise `op` with words of `word_bytes`: every tensor it
/// lists once (inputs and outputs), else elements x (reads + writes); all repetitions.
double gpu_eltwise_words(const Op& op);

}  // namespace trainsim
