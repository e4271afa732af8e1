#include "sim/hype/hype_model.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "sim/core/error.h"
#include "sim/core/format.h"

namespace trainsim {

namespace {

// Power draws within this fraction of the cap count as at the cap: the runtime admits ops on
// sums of peaks, the trace adds and removes them one by one, and the two may differ by a
// rounding.
constexpr double kCapTolerance = 1e-9;

// The cap's violations in a replica's power trace, sampled every `sample_s` from time 0 as a
// power meter would (the paper does not say how it counted; docs/hype.md): the samples that
// fall in each step above the cap. The replicas run in step, so the system draws `gpus` times
// a replica's power plus the host's.
void count_violations(HypeOutcome& o, double cap, double sample_s, int gpus, double host_w) {
  const std::vector<PowerStep>& p = o.run.power;
  auto system = [&](double replica_w) { return gpus * replica_w + host_w; };
  o.peak_w = system(o.run.peak_w);
  if (!std::isfinite(cap)) return;
  // Samples at k * sample_s in [a, b): ceil(b / s) - ceil(a / s).
  auto samples_before = [&](double t) { return std::ceil(t / sample_s - 1e-9); };
  for (std::size_t i = 0; i < p.size(); ++i) {
    const double end = i + 1 < p.size() ? p[i + 1].t_s : o.run.makespan_s;
    if (end <= p[i].t_s || system(p[i].peak_w) <= cap * (1 + kCapTolerance)) continue;
    o.above_cap_s += end - p[i].t_s;
    o.violations += samples_before(end) - samples_before(p[i].t_s);
  }
}

// Static power of `gpus` replicas of `per_gpu_w` each plus the host's.
double system_static_w(int gpus, double per_gpu_w, double host_w) {
  return gpus * per_gpu_w + host_w;
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
  DagOptions dag_options;
  dag_options.bias_ops = spec.bias_ops;
  it.dag = build_op_dag(net, it.batch_per_gpu, 32, optimizer, dag_options);
  const std::unique_ptr<DeviceModel> gpu = spec.gpu->build();
  const std::unique_ptr<DeviceModel> offload = spec.offload ? spec.offload->build() : nullptr;
  const int per_gpu = spec.offloads_per_gpu();

  // Two systems: the GPU with its offload devices, and the GPU alone (the baselines'). The
  // host's static power belongs to the whole system, once: the replicas' runs leave it out.
  RuntimeSystem alone;
  alone.gpu = gpu.get();
  alone.gpu_link = spec.gpu_link;
  alone.offload_link = spec.offload_link;
  alone.overlap = spec.overlap_rule;
  RuntimeSystem hybrid = alone;
  hybrid.offload = per_gpu > 0 ? offload.get() : nullptr;
  hybrid.offload_count = per_gpu;

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
    for (int i = 0; i < it.dag.size(); ++i) {
      it.character.ops[static_cast<std::size_t>(i)].type = it.dag.node(i).type;
      it.character.ops[static_cast<std::size_t>(i)].gpu = gpu->cost(it.dag.node(i).op);
    }
  }
  // Every op must be able to run on the GPU: it is where the baselines run everything.
  for (int i = 0; i < it.dag.size(); ++i)
    if (!it.character.ops[static_cast<std::size_t>(i)].gpu.supported)
      throw UserError(spec.gpu_key + ": device '" + gpu->name() + "' has no kernel for " +
                      paper_op_type_name(it.dag.node(i).type) + " (op " + std::to_string(i) +
                      ", layer " + std::to_string(it.dag.node(i).op.layer) +
                      "), and every op must be able to run on the GPU");

  PolicyParams params;
  params.dvfs = spec.dvfs;
  params.offload_types = spec.offload_types;
  // The replicas are identical and run in step: each keeps its share of the cap left after
  // the host.
  params.power_cap_w = std::isfinite(spec.power_cap_w)
                           ? (spec.power_cap_w - spec.host_static_w) / spec.gpus
                           : spec.power_cap_w;
  const std::unique_ptr<HypePolicy> policy = hype_policy_info(spec.policy).make(params);
  const std::unique_ptr<HypePolicy> baseline = make_gpu_only_policy(params);
  const RuntimeSystem& sys = policy->offloads() ? hybrid : alone;
  it.policy_offloads = policy->offloads();

  it.plan = policy->offloads() ? policy->plan(it.character)
                               : std::vector<OpSite>(it.character.ops.size(), OpSite::kGpu);
  it.gpu_only.run = run_iteration(
      it.dag, it.character, std::vector<OpSite>(it.plan.size(), OpSite::kGpu), *baseline, alone);
  std::vector<OpSite> plan = it.plan;
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
    // Move back the planned offloads that lose the most against the GPU, doubling the count
    // each round, until the iteration is no slower; with every op back it is gpu-only's. Then
    // give the last round's ops back, as many as a bisection finds the iteration still no
    // slower with (a round that doubled may have moved back more than it needed).
    auto slower = [&](const RuntimeResult& r) {
      return r.makespan_s > it.gpu_only.run.makespan_s * (1 + kCapTolerance);
    };
    int step = 1;
    std::vector<int> last_round;
    while (slower(it.policy.run)) {
      std::vector<int> off;
      for (int i = 0; i < it.dag.size(); ++i)
        if (it.policy.run.ops[static_cast<std::size_t>(i)].place == OpSite::kOffload &&
            plan[static_cast<std::size_t>(i)] == OpSite::kOffload)
          off.push_back(i);
      if (off.empty()) break;
      auto loss = [&](int i) {
        const OpRun& o = it.policy.run.ops[static_cast<std::size_t>(i)];
        return (o.end_s - o.dispatch_s) - it.character.ops[static_cast<std::size_t>(i)].gpu.time_s;
      };
      std::stable_sort(off.begin(), off.end(), [&](int a, int b) { return loss(a) > loss(b); });
      off.resize(std::min(off.size(), static_cast<std::size_t>(step)));
      for (int i : off) plan[static_cast<std::size_t>(i)] = OpSite::kGpu;
      last_round = off;
      step *= 2;
      it.policy.run = run_iteration(it.dag, it.character, plan, *policy, sys);
    }
    if (last_round.size() > 1 && !slower(it.policy.run)) {
      // The fewest of the last round's ops (worst first) that keep the iteration no slower.
      std::size_t lo = 0, hi = last_round.size();  // hi suffices; lo does not (it was slower)
      RuntimeResult best = it.policy.run;
      while (hi - lo > 1) {
        const std::size_t mid = (lo + hi) / 2;
        std::vector<OpSite> trial = plan;
        for (std::size_t k = mid; k < last_round.size(); ++k)
          trial[static_cast<std::size_t>(last_round[k])] = OpSite::kOffload;
        RuntimeResult r = run_iteration(it.dag, it.character, trial, *policy, sys);
        if (slower(r)) {
          lo = mid;
        } else {
          hi = mid;
          best = std::move(r);
        }
      }
      for (std::size_t k = hi; k < last_round.size(); ++k)
        plan[static_cast<std::size_t>(last_round[k])] = OpSite::kOffload;
      it.policy.run = std::move(best);
      last_round.resize(hi);
    }
    // Every round but the last moved back all its ops; the last keeps what the bisection kept.
    it.guard_demotions = 0;
    for (std::size_t i = 0; i < plan.size(); ++i)
      it.guard_demotions += it.plan[i] == OpSite::kOffload && plan[i] == OpSite::kGpu;
  }

  it.run_plan = plan;

  // The data movement the iteration could not hide: the same placement again with links that
  // take no time. The runtime may order the ops differently then, so it is an estimate.
  if (it.policy.run.offloaded > 0) {
    std::vector<OpSite> ran(plan.size());
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
  // steps, each moving 1/G of it from every GPU up to the host and down to the next GPU (two
  // hops, store and forward, as every move through the host).
  const int g = spec.gpus;
  if (g > 1) {
    it.allreduce_bytes = 4.0 * static_cast<double>(net.param_count());
    it.allreduce_s = 2.0 * (g - 1) * 2 * spec.gpu_link.time_s(it.allreduce_bytes / g);
  }
  // Every GPU sends and receives 2 (G - 1) / G of its gradient, each byte over two links.
  const double allreduce_link_j =
      g > 1 ? g * 2.0 * (g - 1) / g * it.allreduce_bytes * 2 * 8 * spec.gpu_link.pj_per_bit * 1e-12
            : 0;
  const double offload_static_w = offload ? offload->static_w() : 0;
  for (HypeOutcome* o : {&it.policy, &it.gpu_only}) {
    const bool with_offload = o == &it.policy && policy->offloads();
    const double replica_static = gpu->static_w() + (with_offload ? per_gpu * offload_static_w : 0);
    o->iteration_s = o->run.makespan_s + it.allreduce_s;
    o->energy_j = g * o->run.energy_j() + spec.host_static_w * o->run.makespan_s +
                  system_static_w(g, replica_static, spec.host_static_w) * it.allreduce_s +
                  allreduce_link_j;
    count_violations(*o, spec.power_cap_w, spec.sample_ms * 1e-3, g, spec.host_static_w);
  }
  return it;
}

}  // namespace trainsim
