#pragma once
// Hype-training's runtime (He et al., ICS 2021, Sec. 3.4) as a simulation of one training
// iteration's op DAG on one GPU and `offload_count` offload devices (FPGAs), each joined to the
// host by its own full-duplex link (PCIe), on the SystemC kernel every device shares: each
// device is a process that runs the ops it is given once their inputs have arrived, the links
// are the platform's (models/platform/links.h, the host as a star's switch), and a dispatcher
// process decides once per instant, after everything that happens at that instant, since
// every decision reads the live state (which device is idle, the system's power now). Times
// are whole picoseconds. A BERT-Large iteration of a few thousand ops runs in milliseconds.
//
// The rules, as the paper states them and docs/hype.md reads them:
//   * When a device is idle it takes the ready op of the highest upward rank (the longest
//     GPU-time path from the op to the end of the iteration) that the policy planned for it.
//     Big ops (characterize.h) need every offload device at once, small ones one.
//   * An idle GPU with no GPU op ready runs a ready op planned for the busy offload devices
//     ("run the operations on GPU without waiting (thus no worse than without Hype-training)").
//   * The overlap rule: an op planned for the offload devices that reads results of GPU ops runs
//     there only if moving them (GPU -> host -> device, unloaded) takes no longer than "the GPU
//     op right before" it, read as OverlapRule says; otherwise it goes to the GPU for this
//     iteration.
//   * Data: an op's result stays where it ran. Results of offloaded ops go back to the GPU as
//     soon as they are done (the framework's tensors live there); inputs move to an offload
//     device when it takes the op, so a device may hold an op while its data arrives (its wait).
//     Tensors from outside the iteration (weights, optimizer state, the batch) come from the GPU,
//     where the previous iteration left them; the host stages those of ops planned off the GPU
//     from the iteration's start, behind any transfer an op waits for. Each link direction
//     carries one transfer at a time, in the order they reach it; latency does not hold it.
//   * Power: a busy device draws its op's average power (a gang op's split evenly), an idle one
//     its static power, the host `host_static_w`. The policy may refuse an op whose peak power
//     would take the system's peak over a cap; the system's peak then never exceeds it.
#include <string>
#include <vector>

#include "models/platform/task_graph.h"
#include "sim/hype/characterize.h"
#include "sim/hype/policy.h"
#include "sim/spec/system_spec.h"

namespace trainsim {

/// A device's link to the host: one channel each way.
struct HostLink {
  double bandwidth_gbps = 12;  ///< per direction, 1e9 bytes per second
  double latency_s = 0;        ///< from the last byte sent to its arrival
  double pj_per_bit = 6;
  /// `bytes` alone on the link, latency included.
  double time_s(double bytes) const { return latency_s + bytes / (bandwidth_gbps * 1e9); }
};

/// How the overlap rule reads "the GPU op right before" an offloaded op (docs/hype.md#runtime).
enum class OverlapRule : std::uint8_t {
  /// the GPU work the move runs beside (the rest of its op, then its next one) plus what the
  /// op gains on the offload devices
  kWindow,
  kPrevious,  ///< the GPU op that ran last (often the producer, a short op)
  kOff,       ///< no rule: every planned op moves (the never-slower guard still applies)
};
/// "window", "previous", "off"
const char* overlap_rule_name(OverlapRule r);
/// Parses overlap_rule_name() output; false if unknown.
bool parse_overlap_rule(const std::string& text, OverlapRule& r);

/// The most offload devices a GPU can have (a device set is a 64-bit mask with the GPU in bit 0).
inline constexpr int kMaxOffloadDevices = 63;

struct RuntimeSystem {
  DeviceModel* gpu = nullptr;
  DeviceModel* offload = nullptr;  ///< null (and offload_count 0): a GPU alone
  int offload_count = 0;           ///< at most kMaxOffloadDevices
  HostLink gpu_link, offload_link;
  double host_static_w = 0;
  OverlapRule overlap = OverlapRule::kWindow;
};

/// The system as the platform's links see it: the GPU is device 0, offload device k is device
/// k + 1, and the host is the switch every device is linked to (its own link each, full
/// duplex; figures and keys from `hype.links.gpu` and `hype.links.offload`). Channel 2d
/// carries device d's data up to the host, 2d + 1 down from it.
InterconnectSpec host_star(const RuntimeSystem& sys, int devices);

/// One op as it ran.
struct OpRun {
  OpSite place = OpSite::kGpu;
  int first_device = 0;   ///< 0: the GPU; d >= 1: offload device d - 1
  int devices = 1;        ///< devices it occupied (a gang for big offloaded ops)
  double dispatch_s = 0;  ///< when its device(s) took it
  double start_s = 0;     ///< when its inputs were all there and it started
  double end_s = 0;
  double clock = 1;              ///< the GPU clock it ran at, as a fraction of the full clock
  bool demoted = false;          ///< planned for the offload devices, ran on the GPU
  bool overlap_blocked = false;  ///< demoted by the overlap rule
};

struct DeviceUse {
  std::string name;  ///< "gpu", "offload0", ...
  int ops = 0;
  double busy_s = 0;    ///< running ops
  double wait_s = 0;    ///< holding an op whose inputs were still on their way
  double energy_j = 0;  ///< ops' energy plus static power when not running
  double peak_w = 0;    ///< the highest draw of any op it ran (its static power if none)
};

struct LinkUse {
  std::string name;  ///< "gpu:to-host", "offload0:from-host", ...
  int transfers = 0;
  double bytes = 0, busy_s = 0, energy_j = 0;
};

/// The system's draw from `t_s` to the next step (or the end of the iteration).
struct PowerStep {
  double t_s = 0;
  double avg_w = 0;   ///< devices at their ops' average power, plus the host
  double peak_w = 0;  ///< the same at their ops' peak power: what a cap must allow for
};

/// One link transfer, for the timeline.
struct TransferRun {
  int link = 0;  ///< index into RuntimeResult::links
  int op = 0;    ///< the op whose data it carried (a result going back: the producer)
  double start_s = 0, end_s = 0, bytes = 0;
};

struct RuntimeResult {
  double makespan_s = 0;
  std::vector<OpRun> ops;  ///< one per DAG node
  /// The placement as data: per device (the GPU, then the offload devices), the DAG nodes its
  /// process ran, in the order it ran them (a gang's op on its first device only).
  DeviceOrders orders;
  std::vector<DeviceUse> devices;  ///< the GPU, then the offload devices
  std::vector<LinkUse> links;
  std::vector<TransferRun> transfers;
  std::vector<PowerStep> power;
  double device_energy_j = 0, link_energy_j = 0, host_energy_j = 0;
  double peak_w = 0;  ///< the highest PowerStep::peak_w
  int offloaded = 0;  ///< ops that ran on the offload devices
  int demoted = 0;    ///< ops planned for them that ran on the GPU
  int overlap_blocked = 0;
  /// DVFS: the GPU's clock level at the start and at the end (0: full clock), and its clock
  /// averaged over its busy time (1 without DVFS).
  int start_level = 0, end_level = 0;
  double mean_clock = 1;
  double energy_j() const { return device_energy_j + link_energy_j + host_energy_j; }
  double avg_w() const { return makespan_s > 0 ? energy_j() / makespan_s : 0; }
};

/// Runs one iteration of `dag` (costs in `c`, one per node) on `sys` with `plan` (one per
/// node) under `policy`, the GPU starting at clock level `start_level` if the policy scales
/// its clock. Deterministic. std::logic_error on mismatched sizes; UserError if the policy's
/// power cap lets no device run a ready op (the cap is too low for it) or it scales a GPU
/// that has no clock to scale.
RuntimeResult run_iteration(const OpDag& dag, const Characterization& c, std::vector<OpSite> plan,
                            const HypePolicy& policy, const RuntimeSystem& sys,
                            int start_level = 0);

/// The upward rank of every node: its duration plus the longest ranked path after it.
std::vector<double> upward_ranks(const OpDag& dag, const std::vector<double>& duration);

}  // namespace trainsim
