#pragma once
// One training iteration of a network on a Hype-training system (sim/hype/hype_spec.h): the
// op DAG at each GPU's share of the batch, its characterization on the GPU and the offload
// devices, the policy's plan and run (sim/hype/runtime.h), and the GPU-only baseline the gains
// are measured against. With several GPUs each runs its share with its own offload devices
// (data parallelism, as the paper's TensorFlow MirroredStrategy) and the gradients are summed
// by a ring all-reduce over the host links after the iteration's ops (not overlapped with
// them: the paper's synchronous updates; docs/hype.md).
#include <memory>
#include <vector>

#include "sim/hype/hype_spec.h"
#include "sim/spec/specs.h"
#include "sim/workload/net_shape.h"

namespace trainsim {

/// What one policy did in one iteration, for the whole system.
struct HypeOutcome {
  RuntimeResult run;       ///< one GPU's replica
  double iteration_s = 0;  ///< the replica's ops, then the all-reduce
  double energy_j = 0;     ///< every replica, links and host, the all-reduce included
  double violations = 0;   ///< power samples above the cap (hype.sample_ms apart)
  double above_cap_s = 0;  ///< time the system's peak draw was above the cap
  double avg_w() const { return iteration_s > 0 ? energy_j / iteration_s : 0; }
  double peak_w = 0;  ///< the system's
};

struct HypeIteration {
  int batch = 0;  ///< the whole system's
  int batch_per_gpu = 0;
  OpDag dag;
  Characterization character;
  std::vector<OpSite> plan;  ///< the policy's plan before the run
  /// The plan the run used: the policy's, less the offloads the never-slower guard moved back.
  std::vector<OpSite> run_plan;
  bool policy_offloads = true;  ///< false: the policy ran on the GPUs alone (HypePolicy)
  int guard_demotions = 0;      ///< offloads moved back so as not to be slower than gpu-only
  /// How much longer the policy's iteration is than the same placement with links that take
  /// no time: the data movement left on the critical path (0 if nothing was offloaded).
  double exposed_transfer_s = 0;
  double allreduce_s = 0;
  double allreduce_bytes = 0;  ///< each GPU's gradient
  HypeOutcome policy;          ///< the experiment's policy
  HypeOutcome gpu_only;        ///< every op on the GPUs
  double samples_per_s() const { return batch / policy.iteration_s; }
};

/// Simulates one iteration of `net` at `batch` samples (divided among the GPUs; UserError if
/// they do not divide it) with `optimizer`'s update.
HypeIteration simulate_hype(const HypeSpec& spec, const NetShape& net, int batch,
                            const OptimizerSpec& optimizer);

}  // namespace trainsim
