#pragma once
// An analytic FPGA with OpenCL kernels, as Hype-training ran them on Stratix 10 (He et al.,
// ICS 2021, Sec. 3.3): per op type, one kernel per input-size class, each a point of the design
// space (fpga_design.h) chosen by the search on the class's representative op, or pinned in
// the device file. An op runs on its type's kernel for its class:
//
//   t    = launch + max(ops / (lanes * fill * wg / (wg + wg_half) * efficiency * f_max),
//                       B / BW),   B = the op's compulsory bytes * traffic_factor
//   fill = GEMM (conv via im2col): min(1, M N / (CU SIMD WG)) * min(1, K / unroll)
//          element-wise:           min(1, elements / (CU SIMD WG unroll))
//   avg = peak = static + dynamic_max * min(1, power_dsp * dsp_share * u + power_ram * ram_share
//                                               + power_memory * B / (t BW))
// with u the achieved share of the design's peak multiply-add rate. Peak equals average: the
// paper's FPGA figures come from a power estimator (Powerplay) and are equal in every row of
// Table 1. docs/hype.md explains each choice.
#include <array>
#include <optional>

#include "sim/devices/device_model.h"
#include "sim/devices/fpga_design.h"
#include "sim/devices/op_work.h"
#include "sim/devices/size_class.h"

namespace trainsim {

/// The hardware figures have no default (a device file must give them); the fitted parameters
/// default to the initial values configs/devices/s10_gx2500.yaml documents.
struct FpgaSpec final : DeviceModelSpec {
  /// Words are fp32: the paper does not change the precision (Sec. 3.2, footnote).
  static constexpr int kWordBytes = 4;
  double clock_mhz = 0;  ///< the device's peak operating frequency; caps every kernel's f_max
  double memory_gbps = 0;
  FpgaResources resources;
  double static_w = 0;
  double dynamic_max_w = 0;
  FpgaDesignSpace space;
  /// Per kernel type: whether the device has that kernel, and per size class a design pinned by
  /// the device file (none: the search picks it).
  struct Kernels {
    bool present = false;
    std::array<std::optional<FpgaDesign>, kNumSizeClasses> pinned;
  };
  std::array<Kernels, kNumKernelTypes> kernels;
  // The parameters a calibration fits (issue 17, step 2).
  FpgaFmaxModel fmax;
  double efficiency = 0.8;  ///< pipeline efficiency, in (0, 1]
  double work_group_half = 32;
  double traffic_factor = 1;
  double launch_us = 10;
  double power_dsp = 0.5;
  double power_ram = 0.25;
  double power_memory = 0.2;

  std::unique_ptr<DeviceModel> build() const override;
  std::string figures() const override;
};

/// The kernel of one op type and size class.
struct FpgaKernel {
  RankedDesign design;  ///< time_s: on the class's representative op
  bool pinned = false;  ///< given by the device file, not searched
  DesignSearch search;  ///< what the search saw (empty when pinned)
};

class FpgaModel final : public DeviceModel {
 public:
  /// Runs the design searches (a few milliseconds for a space of 20,480 designs).
  explicit FpgaModel(const FpgaSpec& spec);
  const std::string& name() const override { return spec_.name; }
  const std::string& kind() const override { return spec_.kind; }
  double static_w() const override { return spec_.static_w; }
  int word_bytes() const override { return FpgaSpec::kWordBytes; }
  OpCost cost(const Op& op) override;
  const FpgaSpec& spec() const { return spec_; }
  /// The kernel `op` runs on, or nullptr if the device has none for its type.
  const FpgaKernel* kernel_for(const Op& op) const;
  const FpgaKernel* kernel(KernelType t, SizeClass c) const;

  /// The op the search optimises a kernel of type `t` for class `c`: a square GEMM of 512, 2048
  /// or 8192 (the middle of each class on a log scale; 8192 for large), or an element-wise op
  /// of 2^17, 2^19 or 2^21 elements (two reads, one write, one operation each, like Mul).
  static Op representative_op(KernelType t, SizeClass c);
  /// Time of design `d` at `fmax_mhz` on `op` (the formula above).
  double kernel_time_s(const FpgaDesign& d, double fmax_mhz, const Op& op) const;

 private:
  FpgaSpec spec_;
  std::array<std::array<std::optional<FpgaKernel>, kNumSizeClasses>, kNumKernelTypes> kernels_;
};

}  // namespace trainsim
