#pragma once
// When two devices of a system are the same device: what lets a run cost a device once for all
// its copies (pipeline stages) and tell a system's kinds of device apart (Hype's GPUs and
// offload devices).
#include "sim/spec/system_spec.h"

namespace trainsim {

/// The same device file or inline mapping (entries repeated by `count` share one), or
/// accelerators equal in every figure (the YAML config.resolved.yaml writes for them, not just
/// their names: inline devices of one file share a name) and in dataflow.
bool same_device(const DeviceSpec& a, const DeviceSpec& b);

}  // namespace trainsim
