#include "sim/devices/fpga_model.h"

#include <algorithm>
#include <cstdio>

namespace trainsim {

namespace {

constexpr std::int64_t kRepresentativeDim[kNumSizeClasses] = {512, 2048, 8192};
constexpr std::int64_t kRepresentativeElements[kNumSizeClasses] = {
    std::int64_t{1} << 17, std::int64_t{1} << 19, std::int64_t{1} << 21};

// The share of a design's lanes an op keeps busy (see fpga_model.h).
double fill(const FpgaDesign& d, const OpWork& w, bool elementwise) {
  const double groups = static_cast<double>(d.compute_units) * d.simd * d.work_group;
  if (elementwise) return std::min(1.0, static_cast<double>(w.gemm.m) / (groups * d.unroll));
  return std::min(1.0, static_cast<double>(w.gemm.m) * static_cast<double>(w.gemm.n) / groups) *
         std::min(1.0, static_cast<double>(w.gemm.k) / d.unroll);
}

}  // namespace

std::unique_ptr<DeviceModel> FpgaSpec::build() const {
  return std::make_unique<FpgaModel>(*this);
}

std::string FpgaSpec::figures() const {
  std::string types;
  for (int t = 0; t < kNumKernelTypes; ++t)
    if (kernels[static_cast<std::size_t>(t)].present)
      types +=
          (types.empty() ? "" : ", ") + std::string(kernel_type_name(static_cast<KernelType>(t)));
  char s[320];
  std::snprintf(s, sizeof s,
                "%g MHz, %g GB/s, %lld DSP, %lld RAM blocks, %g + %g W, %lld designs; kernels: %s",
                clock_mhz, memory_gbps, static_cast<long long>(resources.dsp),
                static_cast<long long>(resources.ram_blocks), static_w, dynamic_max_w,
                static_cast<long long>(space.size()), types.empty() ? "none" : types.c_str());
  return s;
}

Op FpgaModel::representative_op(KernelType t, SizeClass c) {
  const auto i = static_cast<std::size_t>(c);
  if (t == KernelType::kElementwise) {
    ElementwiseShape e;
    e.elements = kRepresentativeElements[i];
    e.reads = 2;
    return Op::make_eltwise(e, OpRole::kForward);
  }
  const std::int64_t d = kRepresentativeDim[i];
  return Op::make_gemm({d, d, d});
}

double FpgaModel::kernel_time_s(const FpgaDesign& d, double fmax_mhz, const Op& op) const {
  const FpgaSpec& s = spec_;
  const OpWork w = op_work(op, FpgaSpec::kWordBytes);
  const double rate = static_cast<double>(d.lanes()) * fill(d, w, op.kind == OpKind::kElementwise) *
                      d.work_group / (d.work_group + s.work_group_half) * s.efficiency * fmax_mhz *
                      1e6;
  const double t_c = w.ops > 0 ? w.ops / rate : 0;
  const double t_m = w.bytes * s.traffic_factor / (s.memory_gbps * 1e9);
  return s.launch_us * 1e-6 + std::max(t_c, t_m);
}

FpgaModel::FpgaModel(const FpgaSpec& spec) : spec_(spec) {
  const FpgaSpec& s = spec_;
  // GEMM-shaped kernel types share their representative ops, so one search serves them all.
  std::array<std::array<std::optional<DesignSearch>, kNumSizeClasses>, 2> searched;
  for (int t = 0; t < kNumKernelTypes; ++t) {
    const auto type = static_cast<KernelType>(t);
    const FpgaSpec::Kernels& k = s.kernels[static_cast<std::size_t>(t)];
    if (!k.present) continue;
    for (int c = 0; c < kNumSizeClasses; ++c) {
      const auto cls = static_cast<SizeClass>(c);
      const Op rep = representative_op(type, cls);
      FpgaKernel kernel;
      if (const auto& pinned = k.pinned[static_cast<std::size_t>(c)]) {
        kernel.pinned = true;
        kernel.design.design = *pinned;
        kernel.design.use = design_use(*pinned, s.resources, FpgaSpec::kWordBytes);
        kernel.design.fmax_mhz = design_fmax_mhz(kernel.design.use, *pinned, s.fmax, s.clock_mhz);
        kernel.design.time_s = kernel_time_s(*pinned, kernel.design.fmax_mhz, rep);
      } else {
        auto& slot = searched[type == KernelType::kElementwise][static_cast<std::size_t>(c)];
        if (!slot) {
          slot = search_designs(s.space, s.resources, s.fmax, s.clock_mhz, FpgaSpec::kWordBytes,
                                [&](const FpgaDesign& d, double fmax_mhz) {
                                  return kernel_time_s(d, fmax_mhz, rep);
                                });
        }
        // The device file's parser has checked that some design of the space fits.
        kernel.search = *slot;
        kernel.design = slot->top.front();
      }
      kernels_[static_cast<std::size_t>(t)][static_cast<std::size_t>(c)] = kernel;
    }
  }
}

const FpgaKernel* FpgaModel::kernel(KernelType t, SizeClass c) const {
  const auto& k = kernels_[static_cast<std::size_t>(t)][static_cast<std::size_t>(c)];
  return k ? &*k : nullptr;
}

const FpgaKernel* FpgaModel::kernel_for(const Op& op) const {
  return kernel(kernel_type(op), size_class(op));
}

OpCost FpgaModel::cost(const Op& op) {
  const FpgaKernel* k = kernel_for(op);
  if (k == nullptr) return unsupported_cost();
  const FpgaSpec& s = spec_;
  const RankedDesign& d = k->design;
  const OpWork w = op_work(op, FpgaSpec::kWordBytes);
  OpCost c;
  c.time_s = kernel_time_s(d.design, d.fmax_mhz, op);
  c.bytes = w.bytes * s.traffic_factor;
  if (!(c.time_s > 0)) {
    c.avg_w = c.peak_w = s.static_w;  // an empty op with no launch cost
    return c;
  }
  c.bandwidth_gbps = c.bytes / c.time_s / 1e9;
  const double peak_rate = static_cast<double>(d.design.lanes()) * d.fmax_mhz * 1e6;
  const double u_compute = w.ops / (c.time_s * peak_rate);
  const double u_memory = c.bandwidth_gbps / s.memory_gbps;
  const double load = std::min(1.0, s.power_dsp * d.use.dsp_share * u_compute +
                                        s.power_ram * d.use.ram_share + s.power_memory * u_memory);
  c.avg_w = c.peak_w = s.static_w + s.dynamic_max_w * load;
  c.energy_j = c.avg_w * c.time_s;
  return c;
}

}  // namespace trainsim
