#include "sim/devices/accel_device.h"

#include <cstdio>

#include "dataflows/registry.h"
#include "sim/accel/energy.h"

namespace trainsim {

namespace {
constexpr double kPicojoule = 1e-12;
}  // namespace

std::unique_ptr<DeviceModel> AccelDeviceSpec::build() const {
  return std::make_unique<AccelDeviceModel>(*this);
}

double AccelDeviceSpec::static_w() const {
  return accelerator_static_w(accelerator, 0);
}

double accelerator_static_w(const AcceleratorSpec& acc, std::int64_t extra_pes) {
  const EnergyTable& t = acc.energy;
  // pJ per ns is mW.
  return (static_cast<double>(acc.pes() + extra_pes) * t.leakage_per_pe_ns +
          acc.buffer_kib() * t.leakage_per_kib_ns) *
         1e-3;
}

std::string AccelDeviceSpec::figures() const {
  char s[240];
  std::snprintf(s, sizeof s, "accelerator %s (%dx%d, %s, %g GHz, %d-bit), energy %s, static %.3g W",
                accelerator.name.c_str(), accelerator.rows, accelerator.cols, dataflow.c_str(),
                accelerator.clock_ghz, accelerator.word_bits, accelerator.energy.name.c_str(),
                static_w());
  return s;
}

AccelDeviceModel::AccelDeviceModel(const AccelDeviceSpec& spec)
    : spec_(spec), cost_(spec_.accelerator, dataflow_or_throw(spec_.dataflow)) {}

OpCost AccelDeviceModel::cost(const Op& op) {
  const AcceleratorSpec& acc = spec_.accelerator;
  Op at_width = op;
  at_width.word_bits = acc.word_bits;
  const OpStats& s = cost_.cost(at_width);
  OpCost c;
  c.time_s = static_cast<double>(s.cycles()) / (acc.clock_ghz * 1e9);
  c.energy_j = price(s, acc).total() * kPicojoule;
  c.avg_w = c.peak_w = c.time_s > 0 ? c.energy_j / c.time_s : spec_.static_w();
  c.bytes = static_cast<double>(s.dram_bytes());
  c.bandwidth_gbps = c.time_s > 0 ? c.bytes / c.time_s / 1e9 : 0;
  return c;
}

}  // namespace trainsim
