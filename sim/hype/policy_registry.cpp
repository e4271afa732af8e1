#include <algorithm>

#include "sim/core/error.h"
#include "sim/hype/policy.h"

namespace trainsim {

const std::vector<PolicyInfo>& hype_policies() {
  static const std::vector<PolicyInfo> all = {
      {"gpu-only",
       "every op on the GPU: the baseline the others are measured against",
       {},
       false,
       make_gpu_only_policy},
      {"energy",
       "Case 1 (He et al. Sec. 3.4): offload the candidates that are faster, or hidden in "
       "their slack; never slower than gpu-only",
       {"hype"},
       false,
       make_energy_policy},
      {"power-cap",
       "Case 2: Case 1's plan, and an op starts only if its peak power keeps the system under "
       "hype.power_cap_w (GPU first)",
       {},
       true,
       make_power_cap_policy},
      {"dvfs",
       "Case 2's baseline (the paper's PMM): every op on the GPU, its clock stepped down while "
       "the last period's average power is over hype.power_cap_w and up below it",
       {},
       true,
       make_dvfs_policy,
       /*scales_clock=*/true},
      {"power-cap-dvfs",
       "Case 2 with the GPU's clock scaled per op: power-cap's plan and admission, and a GPU op "
       "the cap holds back at full clock runs at the fastest clock whose peak fits",
       {},
       true,
       make_power_cap_dvfs_policy,
       /*scales_clock=*/true},
      {"public-code",
       "what the authors' public code (sayounara/Green_training) runs: every MatMul and forward "
       "Conv2D on the offload devices, whatever they cost, the rest on the GPU",
       {"green-training"},
       false,
       make_public_code_policy},
      {"listed",
       "a placement given as data: every op of the types in hype.offload_types that the offload "
       "devices have a kernel for goes there, whatever it costs; the rest on the GPU",
       {},
       false,
       make_listed_policy,
       /*scales_clock=*/false,
       /*takes_offload_types=*/true},
  };
  return all;
}

const PolicyInfo& hype_policy_info(const std::string& name) {
  std::string known;
  for (const PolicyInfo& p : hype_policies()) {
    if (p.name == name || std::find(p.aliases.begin(), p.aliases.end(), name) != p.aliases.end())
      return p;
    known += (known.empty() ? "" : ", ") + p.name;
  }
  throw UserError("unknown policy '" + name + "' (known: " + known + ")");
}

}  // namespace trainsim
