#include "sim/devices/device_identity.h"

#include "sim/accel/accelerator_config.h"

namespace trainsim {

bool same_device(const DeviceSpec& a, const DeviceSpec& b) {
  if (a.model || b.model) return a.model && b.model && a.model_ref == b.model_ref;
  return a.dataflow == b.dataflow &&
         accelerator_yaml(a.accelerator) == accelerator_yaml(b.accelerator);
}

}  // namespace trainsim
