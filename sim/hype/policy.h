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
//   dvfs       the paper's Case 2 baseline (NVIDIA's power management, "PMM"): every op on the
//              GPU, whose clock a controller lowers while the system's average power over the
//              last period is above the cap and raises while it is below it
//   power-cap-dvfs  power-cap's admission, and a GPU op the cap would hold back at full clock
//              runs at the fastest clock whose peak fits (docs/hype.md, Case 2)
//   public-code  what the authors' public code runs: every MatMul and forward Conv2D on the
//              offload devices, the rest on the GPU, no rule moving any back
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "sim/hype/characterize.h"

namespace trainsim {

/// Where an op runs: the GPU, or the offload devices (a gang of them for big ops).
enum class OpSite : std::uint8_t { kGpu, kOffload };

/// A DVFS controller's settings (`hype.dvfs`). The defaults are assumptions (docs/hype.md).
struct DvfsParams {
  /// The controller reads the power and acts this often. At 10 ms it steps too slowly for
  /// AlexNet's 0.15 s iteration, whose average then stays 13 W over a 230 W cap.
  double period_s = 1e-3;
  double step = 7.5 / 1530;  ///< one clock level, as a fraction of the full clock (V100: 7.5 MHz)
  double min_scale = 0.5;    ///< the lowest level
  double hysteresis_w = 10;  ///< raise the clock only below cap - hysteresis
  double gamma = 3;          ///< dynamic power ~ clock^gamma (voltage following the clock)
};

/// The settings a policy may read (`hype:` in an experiment).
struct PolicyParams {
  /// The system's power cap, W (infinite: none).
  double power_cap_w = std::numeric_limits<double>::infinity();
  DvfsParams dvfs;
  /// The `listed` policy's data (`hype.offload_types`): the op types it places on the offload
  /// devices; empty for every other policy.
  std::vector<PaperOpType> offload_types;
};

class HypePolicy {
 public:
  virtual ~HypePolicy() = default;
  virtual std::string name() const = 0;  ///< as in the registry (its description is there)
  /// Whether the policy uses the offload devices. Those that do not (gpu-only, dvfs) run on
  /// the GPUs alone: the offload devices are no part of their system, as the paper's
  /// baselines are GPU-only machines.
  virtual bool offloads() const { return true; }
  /// The device each op of the characterized DAG is planned for.
  virtual std::vector<OpSite> plan(const Characterization& c) const = 0;
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
  /// The overlap rule (hype.overlap_rule) may keep an op planned off the GPU on it.
  virtual bool overlap_rule() const { return true; }
  /// An idle GPU may take a ready op planned for the busy offload devices.
  virtual bool gpu_takes_leftovers() const { return true; }
  /// A power cap, W, the runtime must keep (infinite: none); reports count violations of it.
  virtual double power_cap_w() const { return std::numeric_limits<double>::infinity(); }
  /// DVFS of the GPU: the controller's settings, or null (the GPU stays at its full clock).
  virtual const DvfsParams* dvfs() const { return nullptr; }
  /// Whether a controller steps the GPU's clock every period (next_level()); a policy that
  /// scales the clock otherwise fits it per op.
  virtual bool clock_controller() const { return dvfs() != nullptr; }
  /// Per-op clock fitting (DVFS levels from dvfs()): an op the policy does not admit at the
  /// GPU's clock runs at the highest lower level whose peak it admits, if one does.
  virtual bool fits_clock_per_op() const { return false; }
  /// The clock level (0: full; level k runs at 1 - k step) for the next period, given this one,
  /// the system's average power over the period that ended, and whether in that period the
  /// idle GPU had a ready op it was not admitted to start (a power cap held it back).
  virtual int next_level(int level, int levels, double average_w, bool gpu_refused) const {
    (void)levels, (void)average_w, (void)gpu_refused;
    return level;
  }
};

struct PolicyInfo {
  std::string name;
  std::string description;
  /// Other names it answers to ("hype" for the paper's Case 1, as `compare --systems
  /// gpu-only,hype` names it).
  std::vector<std::string> aliases;
  bool needs_power_cap = false;  ///< `hype.power_cap_w` required
  std::unique_ptr<HypePolicy> (*make)(const PolicyParams&);
  /// It scales the GPU's clock: the GPU must be of a kind that has one (DeviceModel::at_clock).
  bool scales_clock = false;
  /// Its placement is data: it requires `hype.offload_types`, which no other policy takes.
  bool takes_offload_types = false;
};

/// Every policy, in a fixed order.
const std::vector<PolicyInfo>& hype_policies();
/// The policy called `name` (or one of its aliases), or UserError "unknown policy 'x' (known:
/// ...)".
const PolicyInfo& hype_policy_info(const std::string& name);

/// Case 1's plan: the offload devices for every op characterization planned there
/// (OpCharacter::planned_offload), the GPU for the rest.
std::vector<OpSite> characterized_plan(const Characterization& c);

/// Case 2 (Sec. 3.4), what power-cap and power-cap-dvfs share: Case 1's plan; an op starts
/// only if its peak, in place of the static power of the idle devices it takes, keeps the
/// system's peak draw at or under the cap; the GPU chooses first.
class CappedPolicy : public HypePolicy {
 public:
  explicit CappedPolicy(double cap_w) : cap_(cap_w) {}
  std::vector<OpSite> plan(const Characterization& c) const override {
    return characterized_plan(c);
  }
  bool admit(double system_peak_w, double idle_static_w, double op_peak_w) const override {
    return system_peak_w - idle_static_w + op_peak_w <= cap_;
  }
  bool gpu_first() const override { return true; }
  double power_cap_w() const override { return cap_; }

 private:
  double cap_;
};

/// The factories of the registered policies (one file each).
std::unique_ptr<HypePolicy> make_gpu_only_policy(const PolicyParams& p);
std::unique_ptr<HypePolicy> make_energy_policy(const PolicyParams& p);
std::unique_ptr<HypePolicy> make_power_cap_policy(const PolicyParams& p);
std::unique_ptr<HypePolicy> make_dvfs_policy(const PolicyParams& p);
std::unique_ptr<HypePolicy> make_power_cap_dvfs_policy(const PolicyParams& p);
std::unique_ptr<HypePolicy> make_public_code_policy(const PolicyParams& p);
std::unique_ptr<HypePolicy> make_listed_policy(const PolicyParams& p);

}  // namespace trainsim
