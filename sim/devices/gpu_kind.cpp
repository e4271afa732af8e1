// The `gpu` device kind: its YAML keys (configs/devices/v100.yaml documents each) and where
// each lands in GpuSpec.
#include "sim/config/key_ranges.h"
#include "sim/devices/gpu_model.h"
#include "sim/devices/kinds.h"

namespace trainsim {
namespace {

void parse_fit(const ConfigNode& node, GpuSpec& g) {
  ConfigMap m = node.as_map();
  m.allow_only({"launch_us", "efficiency_max", "efficiency_half_outputs", "memory_efficiency",
                "traffic_factor", "ipc_max", "ipc_memory", "power_compute", "power_memory",
                "peak_over_average_w", "split_k_tile_outputs", "split_k_min_depth"});
  if (auto v = m.get("launch_us")) g.launch_us = v->as_double_in(key_range::kLatencyUs);
  if (auto v = m.get("efficiency_max")) g.efficiency_max = v->as_double_fraction();
  if (auto v = m.get("efficiency_half_outputs"))
    g.efficiency_half_outputs = v->as_double_non_negative();
  if (auto v = m.get("memory_efficiency")) g.memory_efficiency = v->as_double_fraction();
  if (auto v = m.get("traffic_factor")) g.traffic_factor = v->as_double_positive();
  if (auto v = m.get("ipc_max")) g.ipc_max = v->as_double_positive();
  if (auto v = m.get("ipc_memory")) g.ipc_memory = v->as_double_non_negative();
  if (auto v = m.get("power_compute")) g.power_compute = v->as_double_non_negative();
  if (auto v = m.get("power_memory")) g.power_memory = v->as_double_non_negative();
  if (auto v = m.get("peak_over_average_w")) g.peak_over_average_w = v->as_double_non_negative();
  if (auto v = m.get("split_k_tile_outputs")) g.split_k_tile_outputs = v->as_double_positive();
  if (auto v = m.get("split_k_min_depth")) g.split_k_min_depth = v->as_double_positive();
}

class GpuKind final : public DeviceKind {
 public:
  std::string name() const override { return "gpu"; }
  std::string description() const override {
    return "analytic GPU: roofline filled by op size, launch overhead, achieved DRAM bandwidth, "
           "IPC-like figure, power = static + dynamic by utilization";
  }
  std::vector<std::string> keys() const override {
    return {"clock_mhz", "sm_count", "peak_tflops", "precision", "memory_gbps", "power", "fit"};
  }
  std::shared_ptr<DeviceModelSpec> parse(const ConfigMap& m, const std::string&) const override {
    auto g = std::make_shared<GpuSpec>();
    g->clock_mhz = m.require("clock_mhz").as_double_in(key_range::kClockMhz);
    // Used by no product: a local range (sim/config/key_ranges.h).
    if (auto v = m.get("sm_count")) g->sm_count = v->as_int_in({1, 1 << 20});
    const ConfigNode peak = m.require("peak_tflops");
    ConfigMap p = peak.as_map();
    p.allow_only({"fp32", "tensor"});
    g->fp32_tflops = p.require("fp32").as_double_in(key_range::kTflops);
    if (auto v = p.get("tensor")) g->tensor_tflops = v->as_double_in(key_range::kTflops);
    if (auto v = m.get("precision")) {
      g->tensor = v->as_choice({"fp32", "tensor"}) == "tensor";
      if (g->tensor && g->tensor_tflops == 0)
        v->fail("precision tensor needs peak_tflops.tensor (the tensor cores' peak)");
    }
    g->memory_gbps = m.require("memory_gbps").as_double_in(key_range::kBandwidthGbps);
    ConfigMap power = m.require("power").as_map();
    power.allow_only({"static_w", "dynamic_max_w"});
    g->static_w = power.require("static_w").as_double_non_negative();
    g->dynamic_max_w = power.require("dynamic_max_w").as_double_positive();
    if (auto v = m.get("fit")) parse_fit(*v, *g);
    return g;
  }
};

}  // namespace

const DeviceKind& gpu_device_kind() {
  static const GpuKind k;
  return k;
}

}  // namespace trainsim
