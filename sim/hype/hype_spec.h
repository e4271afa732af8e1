#pragma once
// `hype:` in an experiment: a hybrid system of GPUs and offload devices (FPGAs, or trainsim's
// own accelerators) on which Hype-training's runtime places each op of a training iteration
// (He et al., ICS 2021; docs/hype.md). Plain values built by sim/hype/hype_config.cpp.
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "sim/devices/device_model.h"
#include "sim/hype/characterize.h"
#include "sim/hype/runtime.h"

namespace trainsim {

struct HypeSpec {
  std::shared_ptr<const DeviceModelSpec> gpu;      ///< the device every op can run on
  int gpus = 1;                                    ///< data-parallel replicas
  std::shared_ptr<const DeviceModelSpec> offload;  ///< null: GPUs alone
  int offloads = 0;                                ///< in all; each GPU gets offloads / gpus
  HostLink gpu_link, offload_link;
  std::string policy = "energy";  ///< `trainsim list policies`
  /// `listed`'s placement as data: the op types it puts on the offload devices.
  std::vector<PaperOpType> offload_types;
  /// W for the whole system; infinite: none. Every policy's run counts violations of it.
  double power_cap_w = std::numeric_limits<double>::infinity();
  bool auto_thresholds = true;  ///< derived as Sec. 3.2 does (characterize.h)
  OffloadThresholds thresholds;
  OverlapRule overlap_rule = OverlapRule::kWindow;
  /// TensorFlow's BiasAdd and BiasAddGrad as ops of their own (DagOptions::bias_ops).
  bool bias_ops = true;
  DvfsParams dvfs;           ///< the dvfs policy's controller
  double host_static_w = 0;  ///< [assumed 0] the CPUs and host memory, not modelled
  double sample_ms = 1;      ///< the power sampling period for counting cap violations
  YAML::Node raw;            ///< the block as written, for config.resolved.yaml
  /// The key that named the GPUs: `hype.gpu`, or `system.devices.N` when the devices come
  /// from the experiment's `system:` (errors about them name it).
  std::string gpu_key = "hype.gpu";
  bool present() const { return gpu != nullptr; }
  int offloads_per_gpu() const { return offloads / gpus; }
  /// Every device's static power plus the host's: the least the system ever draws.
  double static_w() const;
};

}  // namespace trainsim
