#pragma once
// A system of several devices (`system:` in an experiment, presets in configs/systems/) and
// how training is spread over it (`pipeline:`). Plain values, built by the config parser
// (sim/devices/system_config.cpp) only. An experiment without `system:` runs on one device,
// exactly as before.
#include <array>
#include <memory>
#include <string>
#include <vector>

#include "sim/spec/accel_spec.h"

namespace trainsim {

class DeviceModelSpec;  // sim/devices/device_model.h

/// One link: full duplex, the same bandwidth each way.
struct LinkSpec {
  int a = 0, b = 1;            ///< the nodes it joins (devices; `devices` is the switch)
  double bandwidth_gbps = 64;  ///< GB/s per direction
  double latency_ns = 500;     ///< from a transfer's last byte leaving to its arrival
  double pj_per_bit = 4;       ///< energy of one bit crossing the link
  /// The configuration key its figures come from, for errors ("system.links.2",
  /// "hype.links.gpu"); empty: system.link, the figures every link of a topology copies.
  std::string key;
  /// The key gives the latency in microseconds (`latency_us`, as hype.links does), not ns.
  bool latency_in_us = false;
  bool operator==(const LinkSpec& o) const {
    return a == o.a && b == o.b && bandwidth_gbps == o.bandwidth_gbps &&
           latency_ns == o.latency_ns && pj_per_bit == o.pj_per_bit;
  }
};

/// The devices' interconnect as a graph: nodes 0..devices-1 are the devices and, when
/// `has_switch`, node `devices` is a switch.
struct InterconnectSpec {
  int devices = 1;
  bool has_switch = false;
  std::vector<LinkSpec> links;
  int nodes() const { return devices + (has_switch ? 1 : 0); }
};

/// One device of a system. A trainsim accelerator (`accelerator:` in the entry, or a `device:`
/// of kind accelerator) is simulated as a single run would be, with the technique's hardware;
/// a device of another kind (`device:` naming a GPU or an FPGA) prices each op of its stages
/// with its own model (`model`), and `accelerator` then only gives the word width of the
/// experiment's numbers.
struct DeviceSpec {
  AcceleratorSpec accelerator;                   ///< resolved, with its own DRAM channel
  std::string dataflow;                          ///< resolved: the entry's, else the experiment's
  std::shared_ptr<const DeviceModelSpec> model;  ///< null: the accelerator above
  std::string model_name;                        ///< `model`'s name (its file's stem)
  std::string model_kind;                        ///< `model`'s kind
  std::string model_ref;  ///< `device:` as config.resolved.yaml writes it back (YAML text)
  std::string where;      ///< the entry's key, e.g. "system.devices[1]", for error messages
  /// The name reports give the device: the accelerator's, or the device file's.
  const std::string& name() const { return model ? model_name : accelerator.name; }
};

struct SystemSpec {
  std::string name;    ///< preset name, file stem, or "inline"; empty: no system
  std::string source;  ///< file it was read from, or "<inline>"
  std::vector<DeviceSpec> devices;
  std::string topology = "chain";  ///< `trainsim list topologies`
  LinkSpec link;                   ///< every link's figures (topology: custom lists its own)
  InterconnectSpec net;            ///< the links the topology builds
  /// The block that named these devices when `system:` did not: "hype" for a `hype:` with its
  /// own `gpu:` and `offload:` (its devices talk over the host, hype.links, so `net` is empty).
  /// Empty for a `system:`. config.resolved.yaml writes the block that named them, not this.
  /// Such a system may list up to 128 devices (hype.gpus and hype.offloads are each <= 64).
  std::string implied_by;
  bool present() const { return !devices.empty(); }
};

struct PipelineSpec {
  std::string schedule = "gpipe";  ///< `trainsim list schedules`
  int micro_batches = 4;           ///< per batch; must divide training.batch_size
  int chunks = 1;                  ///< model chunks per device (interleaved only)
  /// Data-parallel copies of the pipeline, each on devices/replicas of the system's devices
  /// with its share of every batch (sim/pipeline/replicas.h).
  int replicas = 1;
  /// Micro-batches in all: micro_batches per replica.
  int total_micro_batches() const { return micro_batches * replicas; }
  /// Explicit stage layer ranges [first, last] (inclusive, network layer indices) in stage
  /// order; empty: automatic (balanced stage times).
  std::vector<std::array<int, 2>> stages;
  /// schedule: custom: per device, one batch's tasks in order (`F0`, `B0`, `W0`, ...).
  std::vector<std::vector<std::string>> orders;
};

}  // namespace trainsim
