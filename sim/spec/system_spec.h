#pragma once
// A system of several devices (`system:` in an experiment, presets in configs/systems/) and
// how training is spread over it (`pipeline:`). Plain values, built by the config parser
// (sim/config/system_config.cpp) only. An experiment without `system:` runs on one device,
// exactly as before.
#include <array>
#include <string>
#include <vector>

#include "sim/spec/accel_spec.h"

namespace trainsim {

/// One link: full duplex, the same bandwidth each way.
struct LinkSpec {
  int a = 0, b = 1;            ///< the nodes it joins (devices; `devices` is the switch)
  double bandwidth_gbps = 64;  ///< GB/s per direction
  double latency_ns = 500;     ///< from a transfer's last byte leaving to its arrival
  double pj_per_bit = 4;       ///< energy of one bit crossing the link
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
  /// The links are system.links' entries (topology: custom), not copies of system.link:
  /// which keys an error about a link's figures names.
  bool custom = false;
  int nodes() const { return devices + (has_switch ? 1 : 0); }
};

struct DeviceSpec {
  AcceleratorSpec accelerator;  ///< resolved, with its own DRAM channel
  std::string dataflow;         ///< resolved: the entry's, else the experiment's
};

struct SystemSpec {
  std::string name;    ///< preset name, file stem, or "inline"; empty: no system
  std::string source;  ///< file it was read from, or "<inline>"
  std::vector<DeviceSpec> devices;
  std::string topology = "chain";  ///< `trainsim list topologies`
  LinkSpec link;                   ///< every link's figures (topology: custom lists its own)
  InterconnectSpec net;            ///< the links the topology builds
  bool present() const { return !devices.empty(); }
};

struct PipelineSpec {
  std::string schedule = "gpipe";  ///< `trainsim list schedules`
  int micro_batches = 4;           ///< per batch; must divide training.batch_size
  int chunks = 1;                  ///< model chunks per device (interleaved only)
  /// Explicit stage layer ranges [first, last] (inclusive, network layer indices) in stage
  /// order; empty: automatic (balanced stage times).
  std::vector<std::array<int, 2>> stages;
};

}  // namespace trainsim
