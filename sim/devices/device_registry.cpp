#include "sim/core/named_registry.h"
#include "sim/devices/device_model.h"
#include "sim/devices/kinds.h"
#include "sim/devices/op_work.h"

namespace trainsim {

const std::vector<const DeviceKind*>& device_kinds() {
  static const std::vector<const DeviceKind*> all{&gpu_device_kind(), &fpga_device_kind(),
                                                  &accelerator_device_kind()};
  return all;
}

const DeviceKind* find_device_kind(const std::string& name) {
  return registry_find(device_kinds(), name);
}

std::string unknown_device_kind(const std::string& name) {
  return "unknown device kind '" + name + "' (known: " + registry_names(device_kinds()) + ")";
}

OpCost unsupported_cost() {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  OpCost c;
  c.supported = false;
  c.time_s = c.energy_j = c.avg_w = c.peak_w = c.bytes = c.bandwidth_gbps = nan;
  return c;
}

OpCost DeviceModel::cost_split(const Op& op, int devices) {
  OpCost c = cost(split_rows(op, devices));
  if (!c.supported || devices == 1) return c;
  const double n = devices;
  c.energy_j *= n;
  c.avg_w *= n;
  c.peak_w *= n;
  c.bytes *= n;
  c.bandwidth_gbps *= n;
  return c;
}

}  // namespace trainsim
