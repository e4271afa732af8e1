#pragma once
// How the Hype-training runtime (sim/hype/runtime.h) places and admits ops: a policy plans,
// before the iteration runs, which device each op is meant for, and decides at run time whether
// an idle device may start an op now. One class per policy, one line each in
// policy_registry.cpp; `trainsim list policies` lists them.
//   gpu-only   every op on the GPU (the baseline every gain is measured against)
//   energy     He et al.'s Case 1: offload what characterization found faster, or slower but
//              hidden in its slack, and never end the iteration later than gpu-only
//   power-cap  He et al.'s Case 2: the same plan, and an op starts only if its peak power keeps
//              the system under `hype.power_cap_w`; the GPU is served first
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "sim/hype/characterize.h"

namespace trainsim {

/// Where an op runs: the GPU, or the offload devices (a gang of them for big ops).
enum class Placement : std::uint8_t { kGpu, kOffload };

/// The settings a policy may read (`hype:` in an experiment).
struct PolicyParams {
  /// The system's power cap, W (infinite: none).
  double power_cap_w = std::numeric_limits<double>::infinity();
};

class HypePolicy {
 public:
  virtual ~HypePolicy() = default;
  virtual std::string name() const = 0;
  virtual std::string description() const = 0;
  /// The device each op of the characterized DAG is planned for.
  virtual std::vector<Placement> plan(const Characterization& c) const = 0;
  /// Whether an idle device may start an op whose peak draw there is `op_peak_w` (the static
  /// power of the devices it occupies included), when the system's peak draw is now
  /// `system_peak_w` of which `idle_static_w` is those devices idling.
  virtual bool admit(double system_peak_w, double idle_static_w, double op_peak_w) const {
    (void)system_peak_w, (void)idle_static_w, (void)op_peak_w;
    return true;
  }
  /// At each decision the GPU chooses before the offload devices (the paper's rule under a
  /// cap: "if GPU and FPGA are both idle, use the GPU"); otherwise the offload devices take
  /// their planned ops first and the GPU the rest.
  virtual bool gpu_first() const { return false; }
  /// The runtime moves offloaded ops back to the GPU until the iteration is no slower than
  /// gpu-only (Case 1 promises no throughput loss).
  virtual bool never_slower() const { return false; }
  /// A power cap, W, the runtime must keep (infinite: none); reports count violations of it.
  virtual double power_cap_w() const { return std::numeric_limits<double>::infinity(); }
};

struct PolicyInfo {
  std::string name;
  std::string description;
  bool needs_power_cap = false;  ///< `hype.power_cap_w` required
  std::unique_ptr<HypePolicy> (*make)(const PolicyParams&);
};

/// Every policy, in a fixed order.
const std::vector<PolicyInfo>& hype_policies();
/// The policy called `name`, or UserError "unknown policy 'x' (known: ...)".
const PolicyInfo& hype_policy_info(const std::string& name);

/// Case 1's plan: the offload devices for every op characterization planned there
/// (OpCharacter::planned_offload), the GPU for the rest.
std::vector<Placement> characterized_plan(const Characterization& c);

/// The factories of the registered policies (one file each).
std::unique_ptr<HypePolicy> make_gpu_only_policy(const PolicyParams& p);
std::unique_ptr<HypePolicy> make_energy_policy(const PolicyParams& p);
std::unique_ptr<HypePolicy> make_power_cap_policy(const PolicyParams& p);

}  // namespace trainsim
