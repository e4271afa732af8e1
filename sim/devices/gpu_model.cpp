#include "sim/devices/gpu_model.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "sim/devices/op_work.h"

namespace trainsim {

std::unique_ptr<DeviceModel> GpuSpec::build() const {
  return std::make_unique<GpuModel>(*this);
}

std::string GpuSpec::figures() const {
  char s[200];
  std::snprintf(s, sizeof s, "%g TFLOP/s fp32, %g tensor (%s), %g GB/s, %g MHz, %g + %g W",
                fp32_tflops, tensor_tflops, tensor ? "used" : "not used", memory_gbps, clock_mhz,
                static_w, dynamic_max_w);
  return s;
}

double GpuSpec::parallel_outputs(double results, double depth) const {
  if (sm_count <= 0) return results;
  // Splits fill the SMs one tile each, and no split is shallower than split_k_min_depth.
  const double split =
      std::min(sm_count * split_k_tile_outputs, results * depth / split_k_min_depth);
  return std::max(results, split);
}

OpCost GpuModel::cost(const Op& op) {
  const GpuSpec& s = spec_;
  const OpWork w = op_work(op, s.word_bytes());
  const bool matrix = op.kind != OpKind::kElementwise;
  const double peak_flops = (s.tensor && matrix ? s.tensor_tflops : s.fp32_tflops) * 1e12;
  const double bw = s.memory_gbps * 1e9;
  // The parallelism the SMs share: the results, times the reduction's splits (split-K).
  const double n =
      matrix ? s.parallel_outputs(w.outputs, static_cast<double>(w.gemm.k)) : w.outputs;
  const double eta = s.efficiency_max * n / (n + s.efficiency_half_outputs);
  const double t_c = w.flops > 0 ? w.flops / (peak_flops * eta) : 0;
  const double bytes = w.bytes * s.traffic_factor;
  const double t_m = bytes / (bw * s.memory_efficiency);
  const double t = s.launch_us * 1e-6 + std::max(t_c, t_m);

  OpCost c;
  c.time_s = t;
  c.bytes = bytes;
  c.bandwidth_gbps = t > 0 ? bytes / t / 1e9 : 0;
  const double u_compute = t > 0 ? w.flops / (t * peak_flops) : 0;
  const double u_memory = t > 0 ? bytes / (t * bw) : 0;
  const double load = std::min(1.0, s.power_compute * u_compute + s.power_memory * u_memory);
  c.avg_w = s.static_w + s.dynamic_max_w * load;
  c.peak_w = std::min(s.static_w + s.dynamic_max_w, c.avg_w + s.peak_over_average_w);
  c.energy_j = c.avg_w * t;
  c.ipc = s.ipc_max * std::min(1.0, u_compute / s.efficiency_max + s.ipc_memory * u_memory);
  return c;
}

std::unique_ptr<DeviceModel> GpuModel::at_clock(double scale, double gamma) const {
  GpuSpec s = spec_;
  s.clock_mhz *= scale;
  s.fp32_tflops *= scale;
  s.tensor_tflops *= scale;
  const double power = std::pow(scale, gamma);
  s.dynamic_max_w *= power;
  s.peak_over_average_w *= power;
  return std::make_unique<GpuModel>(s);
}

}  // namespace trainsim
