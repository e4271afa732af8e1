// The `gpu` device kind: its YAML keys (configs/devices/h100.yaml documents each, docs/config.md
// lists them) and where each lands in GpuSpec.
#include <cmath>

#include "sim/devices/gpu_model.h"
#include "sim/devices/kinds.h"
#include "sim/yaml/key_ranges.h"

namespace trainsim {
namespace {

std::vector<std::string> precision_names() {
  std::vector<std::string> out;
  for (int p = 0; p < kNumGpuPrecisions; ++p)
    out.push_back(gpu_precision_name(static_cast<GpuPrecision>(p)));
  return out;
}

// A spatial size bound of a transform's range: a number >= 0, or .inf for none.
double size_bound(const ConfigNode& v) {
  if (v.is_scalar() && (v.as_string() == ".inf" || v.as_string() == "inf")) return GpuFit::kNoLimit;
  return v.as_double_non_negative();
}

double read_parameter(const GpuFitParameter& p, const ConfigNode& v) {
  switch (p.range) {
    case GpuFitParameter::Range::kFraction:
      return v.as_double_fraction();
    case GpuFitParameter::Range::kPositive:
      return v.as_double_positive();
    case GpuFitParameter::Range::kNonNegative:
      return v.as_double_non_negative();
    case GpuFitParameter::Range::kSize:
      return size_bound(v);
  }
  return 0;
}

void parse_fit(const ConfigNode& node, GpuFit& fit) {
  ConfigMap m = node.as_map();
  std::vector<std::string> keys = {"elementwise"};
  const std::vector<GpuFitParameter> params = gpu_fit_parameters(fit);
  for (const GpuFitParameter& p : params)
    if (p.key.find('.') == std::string::npos) keys.push_back(p.key);
  m.allow_only(keys);
  for (const GpuFitParameter& p : params) {
    if (p.key.find('.') != std::string::npos) continue;
    if (auto v = m.get(p.key)) *p.value = read_parameter(p, *v);
  }
  if (auto v = m.get("elementwise")) {
    ConfigMap classes = v->as_map();
    std::vector<std::string> names;
    for (int k = 0; k < kNumEltwiseKernels; ++k)
      names.push_back(eltwise_kernel_name(static_cast<EltwiseKernel>(k)));
    classes.allow_only(names);
    for (int k = 0; k < kNumEltwiseKernels; ++k) {
      auto c = classes.get(names[static_cast<std::size_t>(k)]);
      if (!c) continue;
      ConfigMap e = c->as_map();
      e.allow_only({"bandwidth", "words_per_ns"});
      GpuEltwiseFit& ef = fit.eltwise[static_cast<std::size_t>(k)];
      if (auto b = e.get("bandwidth")) ef.bandwidth = b->as_double_fraction();
      if (auto r = e.get("words_per_ns")) ef.words_per_ns = r->as_double_positive();
    }
  }
}

class GpuKind final : public DeviceKind {
 public:
  std::string name() const override { return "gpu"; }
  std::string description() const override {
    return "analytic GPU: each op as the kernel cuBLAS/cuDNN run (tiles in waves over the SMs, "
           "split-K, convolution algorithm classes, tensor cores), element-wise kernels by class, "
           "launch overhead, power = static + dynamic by utilization";
  }
  std::vector<std::string> keys() const override {
    return {"clock_mhz", "sm_count", "peak_tflops", "precision", "memory_gbps", "power", "fit"};
  }
  std::shared_ptr<DeviceModelSpec> parse(const ConfigMap& m, const std::string&) const override {
    auto g = std::make_shared<GpuSpec>();
    g->clock_mhz = m.require("clock_mhz").as_double_in(key_range::kClockMhz);
    // Used by no product: a local range (sim/yaml/key_ranges.h).
    g->sm_count = m.require("sm_count").as_int_in({1, 1 << 20});
    const ConfigNode peak = m.require("peak_tflops");
    ConfigMap p = peak.as_map();
    const std::vector<std::string> names = precision_names();
    p.allow_only(names);
    g->peak_tflops[static_cast<std::size_t>(GpuPrecision::kFp32)] =
        p.require("fp32").as_double_in(key_range::kTflops);
    for (int i = 1; i < kNumGpuPrecisions; ++i)
      if (auto v = p.get(names[static_cast<std::size_t>(i)]))
        g->peak_tflops[static_cast<std::size_t>(i)] = v->as_double_in(key_range::kTflops);
    auto needs_peak = [&](const ConfigNode& where, GpuPrecision q) {
      if (g->peak(q) <= 0)
        where.fail(std::string("precision ") + gpu_precision_name(q) + " needs peak_tflops." +
                   gpu_precision_name(q) + " (its dense peak), which " + peak.path() +
                   " does not give");
    };
    if (auto v = m.get("precision")) {
      parse_gpu_precision(v->as_choice(names), g->precision);
      needs_peak(*v, g->precision);
    }
    g->memory_gbps = m.require("memory_gbps").as_double_in(key_range::kBandwidthGbps);
    ConfigMap power = m.require("power").as_map();
    power.allow_only({"static_w", "dynamic_max_w"});
    g->static_w = power.require("static_w").as_double_non_negative();
    g->dynamic_max_w = power.require("dynamic_max_w").as_double_positive();
    if (auto v = m.get("fit")) {
      ConfigMap fits = v->as_map();
      fits.allow_only(names);
      for (int i = 0; i < kNumGpuPrecisions; ++i) {
        auto block = fits.get(names[static_cast<std::size_t>(i)]);
        if (!block) continue;
        needs_peak(*block, static_cast<GpuPrecision>(i));
        parse_fit(*block, g->fits[static_cast<std::size_t>(i)]);
        g->has_fit[static_cast<std::size_t>(i)] = true;
      }
    }
    return g;
  }
};

}  // namespace

const DeviceKind& gpu_device_kind() {
  static const GpuKind k;
  return k;
}

}  // namespace trainsim
