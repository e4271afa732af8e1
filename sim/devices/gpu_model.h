#pragma once
// An analytic GPU: a roofline whose compute roof fills up with the op's size, a kernel-launch
// overhead, achieved DRAM bandwidth, an IPC-like figure and power from utilization. Built for
// Hype-training's V100 (configs/devices/v100.yaml); docs/hype.md derives every formula.
//
//   t   = launch + max(t_c, t_m)
//   t_c = F / (P * eta),  eta = eta_max * n / (n + n_half)   (small ops leave SMs idle)
//   n   = max(M N r, min(SMs x tile, M N r K / depth))   r repetitions (split-K, below)
//   t_m = B / (BW * beta),   B = the op's compulsory bytes * traffic_factor
//   avg = static + dynamic_max * min(1, power_compute * F / (t P) + power_memory * B / (t BW))
//   peak = min(static + dynamic_max, avg + peak_over_average_w)
//   ipc = ipc_max * min(1, F / (t P eta_max) + ipc_memory * B / (t BW))
// F: the op's FLOPs, n: its independent results (a GEMM's M x N, an element-wise op's elements),
// P: the peak FLOP/s of the precision it runs in, BW: the memory bandwidth. A GEMM whose output
// tiles are fewer than the SMs has its reduction split (cuBLAS / cuDNN split-K: each split a
// thread block on its own SM, partial sums reduced after) until the tiles x splits fill the SMs
// (one tile per SM: more splits add partial sums, not speed), as long as each split keeps
// `split_k_min_depth` of the reduction. So a backward-weight pass (few weights, a reduction over
// batch x H x W) is not priced as if its M x N were all the parallelism it has. The split count
// is taken as a real number, not rounded: a rounded one would make a slightly larger GEMM
// faster. The efficiency
// grows with n, not F: with eta a function of F, t_c = (F + F_half) / (P eta_max) would only add
// a constant, which launch already is.
// The IPC-like figure counts issue slots: a GEMM that reaches its roof issues ipc_max, a
// streaming op the memory instructions its bandwidth takes.
#include <string>

#include "sim/devices/device_model.h"

namespace trainsim {

/// The hardware figures have no default (a device file must give them); the fitted parameters
/// default to the initial values configs/devices/v100.yaml documents.
struct GpuSpec final : DeviceModelSpec {
  double clock_mhz = 0;  ///< the clock the peaks are quoted at
  double fp32_tflops = 0;
  double tensor_tflops = 0;  ///< 0: none
  /// GEMMs and convolutions run on the tensor cores (fp16 operands, 2-byte words); otherwise
  /// everything runs in fp32 (4-byte words). Element-wise ops always use the fp32 peak.
  bool tensor = false;
  double memory_gbps = 0;
  double static_w = 0;
  double dynamic_max_w = 0;
  int sm_count = 0;  ///< streaming multiprocessors; 0: no split-K (every GEMM's n is M x N)
  // The parameters a calibration fits (issue 17, step 2).
  double launch_us = 5;
  double efficiency_max = 0.8;              ///< eta_max, in (0, 1]
  double efficiency_half_outputs = 131072;  ///< n_half
  double memory_efficiency = 0.8;           ///< beta, in (0, 1]
  double traffic_factor = 1;
  double ipc_max = 5.764;
  double ipc_memory = 0.25;
  double power_compute = 1;
  double power_memory = 0.5;
  double peak_over_average_w = 6;
  // Split-K (assumed, kept by the calibration: no fit row is split far enough to determine them).
  /// Results of one thread block's output tile: 128 x 128, the largest SGEMM tile on Volta
  /// (CUTLASS's default), the one a split-K kernel uses to keep its partial sums few.
  double split_k_tile_outputs = 16384;
  /// Least reduction length per split: a 128 x 128 tile's partial sums (128 x 128 words) stay
  /// within 1/8 of the operand words the split reads ((128 + 128) x depth) at depth >= 512.
  double split_k_min_depth = 512;

  std::unique_ptr<DeviceModel> build() const override;
  std::string figures() const override;
  int word_bytes() const { return tensor ? 2 : 4; }
  /// The parallel work of `results` independent results (all repetitions) each reducing over
  /// `depth`: the results, times the splits of the reduction (split-K) if their tiles cannot
  /// fill the SMs.
  double parallel_outputs(double results, double depth) const;
};

class GpuModel final : public DeviceModel {
 public:
  explicit GpuModel(const GpuSpec& spec) : spec_(spec) {}
  const std::string& name() const override { return spec_.name; }
  const std::string& kind() const override { return spec_.kind; }
  double static_w() const override { return spec_.static_w; }
  OpCost cost(const Op& op) override;
  /// The compute roofs scale with the clock, the memory roof and the launch time do not; the
  /// dynamic power (and the peak's margin over the average) scale by scale^gamma.
  std::unique_ptr<DeviceModel> at_clock(double scale, double gamma) const override;
  const GpuSpec& spec() const { return spec_; }

 private:
  GpuSpec spec_;
};

}  // namespace trainsim
