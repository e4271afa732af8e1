#include "sim/hype/hype_model.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "sim/core/error.h"
#include "sim/report/format.h"

namespace trainsim {

namespace {

// The cap's violations in a replica's power trace, sampled every `sample_s` from time 0 as a
// power meter would (the paper does not say how it counted; docs/hype.md).
// The replicas run in step, so the system draws `gpus` times a replica's power plus the host's.
void count_violations(HypeOutcome& o, double cap, double sample_s, int gpus, double host_w) {
  const std::vector<PowerStep>& p = o.run.power;
  auto system = [&](double replica_w) { return gpus * replica_w + host_w; };
  o.peak_w = system(o.run.peak_w);
  if (!std::isfinite(cap)) return;
  std::size_t k = 0;
  for (double t = 0; t < o.run.makespan_s; t += sample_s) {
    while (k + 1 < p.size() && p[k + 1].t_s <= t) ++k;
    if (system(p[k].peak_w) > cap) o.violations += 1;
  }
  for (std::size_t i = 0; i < p.size(); ++i) {
    const double end = i + 1 < p.size() ? p[i + 1].t_s : o.run.makespan_s;
    if (system(p[i].peak_w) > cap) o.above_cap_s += end - p[i].t_s;
  }
}

}  // namespace

HypeIteration simulate_hype(const HypeSpec& spec, const NetShape& net, int batch,
                            const OptimizerSpec& optimizer) {
  if (batch % spec.gpus != 0)
    throw UserError(
        sformat("hype.gpus: %d GPUs do not divide the batch of %d samples", spec.gpus, batch));
  HypeIteration it;
  it.batch = batch;
  it.batch_per_gpu = batch / spec.gpus;
  // The GPU's words are fp32 (the paper keeps TensorFlow's precision); a GPU model with
  // tensor-core precision prices its own operand width.
  it.dag = build_op_dag(net, it.batch_per_gpu, 32, optimizer);
  const std::unique_ptr<DeviceModel> gpu = spec.gpu->build();
  const std::unique_ptr<DeviceModel> offload = spec.offload ? spec.offload->build() : nullptr;
  const int per_gpu = spec.offloads_per_gpu();

  RuntimeSystem sys;
  sys.gpu = gpu.get();
  sys.offload = per_gpu > 0 ? offload.get() : nullptr;
  sys.offload_count = per_gpu;
  sys.gpu_link = spec.gpu_link;
  sys.offload_link = spec.offload_link;
  sys.overlap = spec.overlap_rule;
  // The host's static power belongs to the whole system, once: the replicas' runs leave it out.
  sys.host_static_w = 0;

  if (per_gpu > 0) {
    CharacterizeDevices d;
    d.gpu = gpu.get();
    d.offload = offload.get();
    d.offload_count = per_gpu;
    d.link_gbps = std::min(spec.gpu_link.bandwidth_gbps, spec.offload_link.bandwidth_gbps);
    const OffloadThresholds t = spec.auto_thresholds
                                    ? auto_thresholds(it.dag, d, spec.thresholds.combine)
                                    : spec.thresholds;
    it.character = characterize(it.dag, d, t);
  } else {
    // GPUs alone: nothing to characterize beyond the GPU's costs.
    it.character.ops.resize(static_cast<std::size_t>(it.dag.size()));
    for (int i = 0; i < it.dag.size(); ++i)
      it.character.ops[static_cast<std::size_t>(i)].gpu = gpu->cost(it.dag.node(i).op);
  }

  PolicyParams params;
  params.power_cap_w = spec.power_cap_w;
  params.dvfs = spec.dvfs;
  // The replicas are identical and run in step: each keeps its share of the cap left after
  // the host.
  params.power_cap_w = std::isfinite(spec.power_cap_w)
                           ? (spec.power_cap_w - spec.host_static_w) / spec.gpus
                           : spec.power_cap_w;
  const std::unique_ptr<HypePolicy> policy = hype_policy_info(spec.policy).make(params);
  const std::unique_ptr<HypePolicy> baseline = make_gpu_only_policy(params);

  it.plan = policy->plan(it.character);
  it.gpu_only.run =
      run_iteration(it.dag, it.character, std::vector<Placement>(it.plan.size(), Placement::kGpu),
                    *baseline, sys);
  std::vector<Placement> plan = it.plan;
  it.policy.run = run_iteration(it.dag, it.character, plan, *policy, sys);
  if (policy->dvfs()) {
    // The controller's clock carries from one iteration to the next: run iterations until one
    // starts where the one before started (a steady state, or a cycle of one iteration), at
    // most 16, and keep the last.
    for (int k = 0; k < 16 && it.policy.run.end_level != it.policy.run.start_level; ++k)
      it.policy.run =
          run_iteration(it.dag, it.character, plan, *policy, sys, it.policy.run.end_level);
  }
  if (policy->never_slower()) {
    // Move back the offloads that lose the most against the GPU, doubling the count each
    // round, until the iteration is no slower; with every op back it is gpu-only's.
    int step = 1;
    while (it.policy.run.makespan_s > it.gpu_only.run.makespan_s) {
      std::vector<int> off;
      for (int i = 0; i < it.dag.size(); ++i)
        if (it.policy.run.ops[static_cast<std::size_t>(i)].place == Placement::kOffload)
          off.push_back(i);
      if (off.empty()) break;
      auto loss = [&](int i) {
        const OpRun& o = it.policy.run.ops[static_cast<std::size_t>(i)];
        return (o.end_s - o.dispatch_s) - it.character.ops[static_cast<std::size_t>(i)].gpu.time_s;
      };
      std::stable_sort(off.begin(), off.end(), [&](int a, int b) { return loss(a) > loss(b); });
      for (int k = 0; k < step && k < static_cast<int>(off.size()); ++k) {
        plan[static_cast<std::size_t>(off[static_cast<std::size_t>(k)])] = Placement::kGpu;
        ++it.guard_demotions;
      }
      step *= 2;
      it.policy.run = run_iteration(it.dag, it.character, plan, *policy, sys);
    }
  }

  // The data movement the iteration could not hide: the same placement again with links that
  // take no time. The runtime may order the ops differently then, so it is an estimate.
  if (it.policy.run.offloaded > 0) {
    std::vector<Placement> ran(plan.size());
    for (std::size_t i = 0; i < ran.size(); ++i) ran[i] = it.policy.run.ops[i].place;
    RuntimeSystem ideal = sys;
    for (HostLink* l : {&ideal.gpu_link, &ideal.offload_link}) {
      l->bandwidth_gbps = std::numeric_limits<double>::infinity();
      l->latency_s = 0;
    }
    ideal.overlap = OverlapRule::kOff;
    const RuntimeResult free_moves =
        run_iteration(it.dag, it.character, ran, *policy, ideal, it.policy.run.start_level);
    it.exposed_transfer_s = std::max(0.0, it.policy.run.makespan_s - free_moves.makespan_s);
  }

  // Data parallelism: a ring all-reduce of each GPU's gradient through the host, 2 (G - 1)
  // steps each moving 1/G of it over every GPU's link.
  if (spec.gpus > 1) {
    it.allreduce_bytes = 4.0 * static_cast<double>(net.param_count());
    const int g = spec.gpus;
    it.allreduce_s =
        2.0 * (g - 1) *
        (spec.gpu_link.latency_s + it.allreduce_bytes / g / (spec.gpu_link.bandwidth_gbps * 1e9));
  }
  const double system_static =
      spec.gpus * (gpu->static_w() + per_gpu * (offload ? offload->static_w() : 0)) +
      spec.host_static_w;
  const double allreduce_link_j = spec.gpus > 1 ? 2.0 * 2.0 * (spec.gpus - 1) * it.allreduce_bytes /
                                                      spec.gpus * 8 * spec.gpu_link.pj_per_bit *
                                                      1e-12 * spec.gpus
                                                : 0;
  for (HypeOutcome* o : {&it.policy, &it.gpu_only}) {
    o->iteration_s = o->run.makespan_s + it.allreduce_s;
    o->energy_j = spec.gpus * o->run.energy_j() + spec.host_static_w * o->run.makespan_s +
                  system_static * it.allreduce_s + allreduce_link_j;
    count_violations(*o, spec.power_cap_w, spec.sample_ms * 1e-3, spec.gpus, spec.host_static_w);
  }
  return it;
}

}  // namespace trainsim
