#pragma once
// The registered device kinds, one per file; device_registry.cpp lists them.
#include "sim/devices/device_model.h"

namespace trainsim {

const DeviceKind& gpu_device_kind();          // gpu_kind.cpp
const DeviceKind& fpga_device_kind();         // fpga_kind.cpp
const DeviceKind& accelerator_device_kind();  // accel_kind.cpp

}  // namespace trainsim
