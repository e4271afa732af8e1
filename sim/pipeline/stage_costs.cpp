#include "sim/pipeline/stage_costs.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "sim/accel/accelerator_config.h"
#include "sim/core/checked_span.h"
#include "sim/core/error.h"
#include "sim/devices/device_identity.h"
#include "sim/pipeline/device_stage_costs.h"
#include "sim/train/shape_only_run.h"

namespace trainsim {

int pass_of_role(OpRole role, int cost_kind) {
  if (const TechniqueRole* own = technique_role_info(role)) {
    // A technique's own work goes with the pass it declares for this kind of batch.
    if (own->pipeline_pass == nullptr) return -1;
    role = own->pipeline_pass(cost_kind);
  }
  switch (role) {
    case OpRole::kForward:
      return static_cast<int>(Pass::kForward);
    case OpRole::kBackwardData:
    case OpRole::kActivationGrad:
      return static_cast<int>(Pass::kBackwardData);
    case OpRole::kBackwardWeight:
      return static_cast<int>(Pass::kBackwardWeight);
    case OpRole::kUpdate:
      return static_cast<int>(Pass::kUpdate);
  }
  return -1;
}

namespace {

// Calls `add` for each pass whose recorded work makes up a task of `pass`: B is Bd and W; the
// bookkeeping tasks (gradient marker, all-reduce steps) have none.
template <class Add>
void for_recorded_passes(Pass pass, Add add) {
  switch (pass) {
    case Pass::kBackward:
      add(Pass::kBackwardData);
      add(Pass::kBackwardWeight);
      break;
    case Pass::kGradDone:
    case Pass::kReduce:
      break;
    default:
      add(pass);
  }
}

}  // namespace

StageCosts::StageCosts(const ExperimentSpec& spec, const NetShape& shape)
    : spec_(spec), shape_(shape) {
  const auto& devices = spec_.system.devices;
  for (std::size_t d = 0; d < devices.size(); ++d) {
    int cls = static_cast<int>(d);
    for (std::size_t e = 0; e < d; ++e)
      if (same_device(devices[e], devices[d])) {
        cls = device_class_[e];
        break;
      }
    device_class_.push_back(cls);
  }
}

const LayerWork& StageCosts::work(int device, int micro, int cost_kind) {
  const int cls = device_class_[static_cast<std::size_t>(device)];
  const auto key = std::make_tuple(cls, micro, cost_kind);
  auto it = cache_.find(key);
  if (it != cache_.end()) return it->second;
  const DeviceSpec& dev = spec_.system.devices[static_cast<std::size_t>(cls)];
  if (dev.model) {
    return cache_.emplace(key, priced_layer_work(spec_, model_of(cls), dev.where, micro, cost_kind))
        .first->second;
  }
  Session& slot = sessions_[{cls, micro}];
  if (!slot.session) {
    slot.spec = std::make_unique<ExperimentSpec>(spec_);
    slot.spec->sim.accelerator = dev.accelerator;
    slot.spec->sim.dataflow = dev.dataflow;
    slot.spec->training.batch_size = micro;
    slot.session = std::make_unique<AcceleratorSession>(*slot.spec);
  }
  AcceleratorSession& session = *slot.session;
  session.record().clear_layer_roles();
  emit_training_batch(*slot.spec, session, cost_kind, micro);
  LayerWork w;
  w.own_unit = session.own_unit();
  w.clock_ghz = dev.accelerator.clock_ghz;
  const auto& roles = session.record().layer_roles(Phase::kTrain);
  w.layers.resize(roles.size());
  for (std::size_t l = 0; l < roles.size(); ++l)
    for (int r = 0; r < kNumRoles; ++r) {
      const OpTotals& t = roles[l][static_cast<std::size_t>(r)];
      if (t.ops == 0) continue;
      const int pass = pass_of_role(static_cast<OpRole>(r), cost_kind);
      if (pass < 0)
        throw UserError("technique '" + spec_.sim.technique.label() +
                        "' cannot run on a pipeline: its " + role_name(static_cast<OpRole>(r)) +
                        " work depends on the data");
      const int unit = session.record().unit_of(l, static_cast<OpRole>(r));
      OpTotals& into =
          w.layers[l][static_cast<std::size_t>(pass)].unit[static_cast<std::size_t>(unit)];
      into.merge(t, t.stats.pes, true);
    }
  return cache_.emplace(key, std::move(w)).first->second;
}

std::array<OpTotals, 2> StageCosts::stage_work(int device, int micro, int cost_kind, int first,
                                               int last, Pass pass) {
  const LayerWork& w = work(device, micro, cost_kind);
  std::array<OpTotals, 2> sum{};
  for_recorded_passes(pass, [&](Pass p) {
    for (int l = first; l < last; ++l)
      for (int u = 0; u < 2; ++u) {
        const OpTotals& t = w.layers[static_cast<std::size_t>(l)][static_cast<std::size_t>(p)]
                                .unit[static_cast<std::size_t>(u)];
        sum[static_cast<std::size_t>(u)].merge(t, t.stats.pes, true);
      }
  });
  return sum;
}

DeviceModel& StageCosts::model_of(int cls) {
  std::unique_ptr<DeviceModel>& model = models_[cls];
  if (!model) model = spec_.system.devices[static_cast<std::size_t>(cls)].model->build();
  return *model;
}

double StageCosts::model_static_w(int device) {
  return model_of(device_class_[static_cast<std::size_t>(device)]).static_w();
}

PricedWork StageCosts::stage_priced(int device, int micro, int cost_kind, int first, int last,
                                    Pass pass) {
  const LayerWork& w = work(device, micro, cost_kind);
  PricedWork sum;
  for_recorded_passes(pass, [&](Pass p) {
    for (int l = first; l < last; ++l)
      sum += w.layers[static_cast<std::size_t>(l)][static_cast<std::size_t>(p)].priced;
  });
  return sum;
}

std::int64_t StageCosts::stage_ps(int device, int micro, int cost_kind, int first, int last,
                                  Pass pass) {
  const LayerWork& w = work(device, micro, cost_kind);
  if (w.priced)
    return checked_round(stage_priced(device, micro, cost_kind, first, last, pass).seconds * 1e12,
                         {spec_.system.devices[static_cast<std::size_t>(device)].where,
                          static_cast<double>(device), "a pipeline stage's pass", "ps"});
  const auto sum = stage_work(device, micro, cost_kind, first, last, pass);
  const std::int64_t main = sum[0].stats.cycles(), second = sum[1].stats.cycles();
  const std::int64_t cycles = w.own_unit ? std::max(main, second) : main + second;
  return checked_round(static_cast<double>(cycles) * 1000.0 / w.clock_ghz,
                       {"accelerator.clock_ghz", w.clock_ghz, "a pipeline stage's pass", "ps"});
}

std::vector<int> partition_stages(const ExperimentSpec& spec, const NetShape& shape,
                                  StageCosts& costs, const PipelineLayout& layout, int micro) {
  const int stages = layout.stages;
  const int n = static_cast<int>(shape.size());
  std::vector<int> first;
  if (!spec.pipeline.stages.empty()) {
    for (const auto& r : spec.pipeline.stages) first.push_back(r[0]);
    first.push_back(n);
    return first;
  }
  if (stages > n)
    throw UserError("the pipeline has " + std::to_string(stages) + " stages, more than the " +
                    std::to_string(n) + " layers of network '" + spec.network.name + "'");
  // Per device that holds a stage (its first pipe's), per layer: forward and backward of one
  // micro-batch there. Devices of different kinds take different times for the same layers.
  std::map<int, std::vector<double>> prefix_of;
  for (int k = 0; k < stages; ++k) {
    const int d = layout.device(0, k);
    if (prefix_of.count(d)) continue;
    std::vector<double>& prefix = prefix_of[d];
    prefix.assign(static_cast<std::size_t>(n) + 1, 0);
    for (int l = 0; l < n; ++l)
      prefix[static_cast<std::size_t>(l) + 1] =
          prefix[static_cast<std::size_t>(l)] +
          static_cast<double>(costs.stage_ps(d, micro, kBaseBatchKind, l, l + 1, Pass::kForward) +
                              costs.stage_ps(d, micro, kBaseBatchKind, l, l + 1, Pass::kBackward));
  }
  // best[k][i]: for layers [0, i) in k stages, the smallest possible slowest stage and,
  // among cuts that reach it, the smallest sum of squared stage times (the most even
  // spread of the rest: a network whose one layer dominates still gets its other layers
  // shared out rather than piled on one stage).
  using Score = std::pair<double, double>;
  const Score none{std::numeric_limits<double>::infinity(), 0};
  std::vector<std::vector<Score>> best(static_cast<std::size_t>(stages) + 1,
                                       std::vector<Score>(static_cast<std::size_t>(n) + 1, none));
  std::vector<std::vector<int>> cut(best.size(), std::vector<int>(best[0].size(), 0));
  best[0][0] = {0, 0};
  for (int k = 1; k <= stages; ++k) {
    const std::vector<double>& prefix = prefix_of[layout.device(0, k - 1)];
    for (int i = k; i <= n; ++i)
      for (int j = k - 1; j < i; ++j) {
        const Score& prev = best[static_cast<std::size_t>(k) - 1][static_cast<std::size_t>(j)];
        const double stage =
            prefix[static_cast<std::size_t>(i)] - prefix[static_cast<std::size_t>(j)];
        const Score v{std::max(prev.first, stage), prev.second + stage * stage};
        Score& here = best[static_cast<std::size_t>(k)][static_cast<std::size_t>(i)];
        if (v < here) {
          here = v;
          cut[static_cast<std::size_t>(k)][static_cast<std::size_t>(i)] = j;
        }
      }
  }
  first.assign(static_cast<std::size_t>(stages) + 1, n);
  for (int k = stages, i = n; k > 0; --k) {
    i = cut[static_cast<std::size_t>(k)][static_cast<std::size_t>(i)];
    first[static_cast<std::size_t>(k) - 1] = i;
  }
  return first;
}

}  // namespace trainsim
