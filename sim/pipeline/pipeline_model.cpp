#include "sim/pipeline/pipeline_model.h"

#include <algorithm>
#include <limits>
#include <stdexcept>

#include "sim/core/error.h"
#include "sim/devices/accel_device.h"
#include "sim/pipeline/replicas.h"
#include "sim/techniques/technique.h"
#include "sim/train/shape_only_run.h"

namespace trainsim {

namespace {

void check_technique(const ExperimentSpec& spec) {
  if (technique_info(spec.sim.technique).shape_only) return;
  throw UserError("technique '" + spec.sim.technique.label() +
                  "' cannot run on a pipeline of devices: what it does depends on the data "
                  "(pipelines support " +
                  shape_only_techniques() + ")");
}

}  // namespace

PipelineModel::PipelineModel(const ExperimentSpec& spec, const NetShape& shape)
    : spec_(spec),
      shape_(shape),
      schedule_((check_technique(spec), schedule_named(spec.pipeline.schedule))),
      params_(schedule_params(spec.pipeline, static_cast<int>(spec.system.devices.size()))),
      base_layout_(schedule_.layout(params_)),
      layout_(replicate_layout(base_layout_, spec.pipeline.replicas)),
      net_(spec.system.net),
      costs_(spec, shape) {
  // Which kinds of batch run a backward pass: a technique's recipe may update without one
  // (ADA-GP's Phase GP predicts its gradients: forward tasks only).
  const ShapeOnlyPlan plan = technique_info(spec.sim.technique).shape_only(spec.sim.technique);
  for (const BatchRecipe& r : plan.recipes) {
    kind_names_.push_back(r.name);
    backprop_kind_.push_back(r.backprop);
  }
  first_ = partition_stages(spec, shape, costs_, layout_, micro_size());
  // Words crossing each stage boundary per sample: outputs of layers before it that a layer
  // after it reads (a skip connection is carried through the stages between).
  const int n = static_cast<int>(shape.size());
  std::vector<int> stage_of(static_cast<std::size_t>(n));
  for (int s = 0; s < layout_.stages; ++s)
    for (int l = first_[static_cast<std::size_t>(s)]; l < first_[static_cast<std::size_t>(s) + 1];
         ++l)
      stage_of[static_cast<std::size_t>(l)] = s;
  boundary_words_.assign(static_cast<std::size_t>(layout_.stages), 0);
  for (int l = 0; l < n; ++l) {
    int last_reader = -1;
    for (int j = l + 1; j < n; ++j)
      for (int in : shape.layer(static_cast<std::size_t>(j)).inputs)
        if (in == l) last_reader = std::max(last_reader, stage_of[static_cast<std::size_t>(j)]);
    for (int s = stage_of[static_cast<std::size_t>(l)]; s < last_reader; ++s)
      boundary_words_[static_cast<std::size_t>(s)] +=
          shape.layer(static_cast<std::size_t>(l)).out.size();
  }
  peak_bytes_.assign(static_cast<std::size_t>(layout_.devices), 0);
  peak_inflight_.assign(static_cast<std::size_t>(layout_.devices), 0);
  // Each device kind's idle draw: a model's own figure; an accelerator's leakage (its array,
  // a technique's own array, its buffer) when its table gives watts.
  for (int d = 0; d < layout_.devices; ++d) {
    const DeviceSpec& dev = spec.system.devices[static_cast<std::size_t>(d)];
    double w = std::numeric_limits<double>::quiet_NaN();
    if (dev.model) {
      w = costs_.model_static_w(d);
    } else if (dev.accelerator.energy.unit == "pJ") {
      const TechniqueHardware hw = technique_hardware(
          spec.sim.technique, shape, static_cast<int>(dev.accelerator.word_bytes()));
      w = accelerator_static_w(dev.accelerator,
                               hw.own_array() ? own_array_spec(hw, dev.accelerator).pes() : 0);
    }
    static_w_.push_back(w);
  }
}

std::int64_t PipelineModel::task_ps(const Task& t, int micro, int cost_kind) {
  if (t.pass == Pass::kGradDone || t.pass == Pass::kReduce) return 0;
  return costs_.stage_ps(t.device, micro, cost_kind, first_[static_cast<std::size_t>(t.stage)],
                         first_[static_cast<std::size_t>(t.stage) + 1], t.pass);
}

std::int64_t PipelineModel::edge_bytes(const Task& from, EdgeData data, int micro) const {
  const std::int64_t word =
      spec_.system.devices[static_cast<std::size_t>(from.device)].accelerator.word_bytes();
  switch (data) {
    case EdgeData::kActivation:
      return boundary_words_[static_cast<std::size_t>(from.stage)] * micro * word;
    case EdgeData::kGradient:
      // The gradient of the boundary below the producing stage travels down.
      return boundary_words_[static_cast<std::size_t>(from.stage) - 1] * micro * word;
    case EdgeData::kReduceChunk: {
      // One ring all-reduce chunk: the stage's gradients over its replicas, rounded up.
      const std::int64_t p = layout_.pipes();
      return (stage_weight_bytes(from.stage) + p - 1) / p;
    }
    case EdgeData::kNone:
      return 0;
    case EdgeData::kTensor:
      break;  // an op graph's edges come with their bytes
  }
  throw std::logic_error("pipeline: an op graph's tensor edge in a stage graph");
}

std::int64_t PipelineModel::stage_activation_bytes(int stage) const {
  const int first = first_[static_cast<std::size_t>(stage)];
  std::int64_t words = shape_.layer(static_cast<std::size_t>(first)).in.size();
  for (int l = first; l < first_[static_cast<std::size_t>(stage) + 1]; ++l)
    words += shape_.layer(static_cast<std::size_t>(l)).out.size();
  return words * word_bytes(stage);
}

std::int64_t PipelineModel::stage_weight_bytes(int stage) const {
  std::int64_t params = 0;
  for (int l = first_[static_cast<std::size_t>(stage)];
       l < first_[static_cast<std::size_t>(stage) + 1]; ++l)
    params += shape_.layer(static_cast<std::size_t>(l)).params;
  return params * word_bytes(stage);
}

std::int64_t PipelineModel::word_bytes(int stage) const {
  // The words of the device that holds the stage (its first replica's).
  return spec_.system.devices[static_cast<std::size_t>(layout_.device(0, stage))]
      .accelerator.word_bytes();
}

std::int64_t PipelineModel::device_weight_bytes(int device) const {
  std::int64_t bytes = 0;
  for (int p = 0; p < layout_.pipes(); ++p)
    for (int s = 0; s < layout_.stages; ++s)
      if (layout_.device(p, s) == device) bytes += stage_weight_bytes(s);
  return bytes;
}

namespace {
// Activation holdings over time on one device: +bytes when a forward starts, -bytes when
// the micro-batch's last backward task of the stage ends (Phase GP: when the forward ends).
template <class Weight>
std::int64_t peak_of(const BatchRun& run, int device, Weight weight) {
  const TaskGraph& g = *run.graph;
  std::vector<std::pair<std::int64_t, std::int64_t>> events;
  for (std::size_t i = 0; i < g.size(); ++i) {
    const Task& t = g.task(static_cast<int>(i));
    if (t.device != device) continue;
    const TaskTiming& time = run.result.tasks[i];
    const bool bp = g.spec().batches[static_cast<std::size_t>(t.batch)] == BatchKind::kBackprop;
    const std::int64_t w = weight(t);
    if (t.pass == Pass::kForward) {
      events.emplace_back(time.start_ps, w);
      if (!bp) events.emplace_back(time.end_ps, -w);
    }
    const bool releases =
        g.spec().split_backward ? t.pass == Pass::kBackwardWeight : t.pass == Pass::kBackward;
    if (releases) events.emplace_back(time.end_ps, -w);
  }
  std::sort(events.begin(), events.end());  // releases first at equal times
  std::int64_t now = 0, peak = 0;
  for (const auto& e : events) peak = std::max(peak, now += e.second);
  return peak;
}
}  // namespace

std::int64_t PipelineModel::peak_activation_bytes(const BatchRun& run, int device) const {
  return peak_of(run, device,
                 [&](const Task& t) { return stage_activation_bytes(t.stage) * run.micro; });
}

int PipelineModel::peak_inflight(const BatchRun& run, int device) const {
  return static_cast<int>(peak_of(run, device, [](const Task&) { return std::int64_t{1}; }));
}

BatchRun PipelineModel::run(const std::vector<int>& kinds, int micro) {
  BatchRun r;
  r.kinds = kinds;
  r.micro = micro;
  GraphSpec gs;
  gs.micro_batches = spec_.pipeline.micro_batches;
  gs.batches.clear();
  for (int k : kinds)
    gs.batches.push_back(backprop_kind_[static_cast<std::size_t>(k)] ? BatchKind::kBackprop
                                                                     : BatchKind::kForwardOnly);
  gs.split_backward = schedule_.split_backward(params_);
  // The schedule orders one replica's graph; replicas run copies of its orders.
  std::unique_ptr<TaskGraph> base;
  if (spec_.pipeline.replicas > 1) {
    base = std::make_unique<TaskGraph>(base_layout_, gs);
    gs.micro_batches = spec_.pipeline.total_micro_batches();
  }
  r.graph = std::make_unique<TaskGraph>(layout_, gs);
  const TaskGraph& g = *r.graph;
  auto kind_of = [&](const Task& t) { return kinds[static_cast<std::size_t>(t.batch)]; };
  PlanCosts plan;
  plan.task_ps = [&](const Task& t) { return task_ps(t, micro, kind_of(t)); };
  plan.edge_ps = [&](const Task& from, const Task& to, EdgeData data) {
    return net_.transfer_ps(from.device, to.device, edge_bytes(from, data, micro));
  };
  r.orders = base ? replicate_orders(*base, schedule_.order(*base, plan, params_), g,
                                     spec_.pipeline.replicas)
                  : schedule_.order(g, plan, params_);
  std::vector<std::int64_t> durations;
  for (const Task& t : g.tasks()) durations.push_back(plan.task_ps(t));
  r.graph->set_edge_bytes(
      [&](const Task& from, EdgeData data) { return edge_bytes(from, data, micro); });
  PlatformWork work{&g, &r.orders, std::move(durations)};
  r.result = run_platform(net_, work);
  for (int d = 0; d < layout_.devices; ++d) {
    peak_bytes_[static_cast<std::size_t>(d)] =
        std::max(peak_bytes_[static_cast<std::size_t>(d)], peak_activation_bytes(r, d));
    peak_inflight_[static_cast<std::size_t>(d)] =
        std::max(peak_inflight_[static_cast<std::size_t>(d)], peak_inflight(r, d));
  }
  return r;
}

std::int64_t PipelineModel::sequence_ps(const std::vector<int>& kinds, int micro) {
  auto key = std::make_pair(kinds, micro);
  auto it = makespans_.find(key);
  if (it != makespans_.end()) return it->second;
  const std::int64_t t = run(kinds, micro).result.makespan_ps;
  makespans_.emplace(key, t);
  return t;
}

const BatchRun& PipelineModel::single(int kind, int micro) {
  auto key = std::make_pair(kind, micro);
  auto it = singles_.find(key);
  if (it == singles_.end()) it = singles_.emplace(key, run({kind}, micro)).first;
  return it->second;
}

PipelineEpoch PipelineModel::epoch(const std::vector<int>& kinds, std::int64_t rest) {
  for (int k : kinds)
    if (k < 0 || k >= static_cast<int>(kind_names_.size()))
      throw std::logic_error("pipeline: batch kind " + std::to_string(k) + " has no recipe");
  // Epochs of the same schedule phase have the same batches: timed once.
  auto memo = epochs_.find({kinds, rest});
  if (memo != epochs_.end()) return memo->second;
  const int m = spec_.pipeline.total_micro_batches();
  const int micro = micro_size();
  PipelineEpoch e;
  e.batches.assign(kind_names_.size(), 0);
  e.busy_s.assign(static_cast<std::size_t>(layout_.devices), 0);
  e.device_work.resize(static_cast<std::size_t>(layout_.devices));
  e.device_priced.resize(static_cast<std::size_t>(layout_.devices));
  e.channels.resize(net_.channels().size());
  // Busy time, work and traffic add up batch by batch, whatever overlaps: counted here,
  // multiplied out at the end.
  std::map<std::pair<int, int>, std::int64_t> count;
  auto add_batch = [&](int kind, int mb) {
    ++e.batches[static_cast<std::size_t>(kind)];
    ++count[{kind, mb}];
  };
  // Full batches: stretches that end with a backprop batch, each timed after the batch
  // before it.
  int before = -1;
  std::vector<int> stretch;
  double time_ps = 0;
  auto close = [&]() {
    if (stretch.empty()) return;
    if (before < 0) {
      time_ps += sequence_ps(stretch, micro);
    } else {
      std::vector<int> with = {before};
      with.insert(with.end(), stretch.begin(), stretch.end());
      time_ps += sequence_ps(with, micro) - sequence_ps({before}, micro);
    }
    before = stretch.back();
    stretch.clear();
  };
  const std::size_t full = kinds.size() - (rest > 0 ? 1 : 0);
  for (std::size_t i = 0; i < full; ++i) {
    stretch.push_back(kinds[i]);
    add_batch(kinds[i], micro);
    if (backprop_kind_[static_cast<std::size_t>(kinds[i])]) close();
  }
  close();
  if (rest > 0) {
    // The last partial batch: m micro-batches of ceil(rest / m) samples (padded), alone.
    const int mb = static_cast<int>((rest + m - 1) / m);
    time_ps += sequence_ps({kinds.back()}, mb);
    add_batch(kinds.back(), mb);
  }
  e.time_s = time_ps * 1e-12;
  for (const auto& [key, n] : count) {
    const BatchRun& one = single(key.first, key.second);
    for (int d = 0; d < layout_.devices; ++d) {
      e.busy_s[static_cast<std::size_t>(d)] +=
          static_cast<double>(one.result.busy_ps[static_cast<std::size_t>(d)]) * 1e-12 *
          static_cast<double>(n);
      const DeviceBatchWork& w = batch_work(key.first, key.second);
      accumulate(e.device_work[static_cast<std::size_t>(d)],
                 times(w.counted[static_cast<std::size_t>(d)], n));
      e.device_priced[static_cast<std::size_t>(d)] +=
          w.priced[static_cast<std::size_t>(d)].times(n);
    }
    for (std::size_t c = 0; c < e.channels.size(); ++c) {
      const ChannelStats& s = one.result.channels[c];
      e.channels[c].bytes += s.bytes * n;
      e.channels[c].transfers += s.transfers * n;
      e.channels[c].busy_s += static_cast<double>(s.busy_ps) * 1e-12 * static_cast<double>(n);
      e.channels[c].energy_pj += s.energy_pj * static_cast<double>(n);
    }
  }
  price_work(e);
  epochs_.emplace(std::make_pair(kinds, rest), e);
  return e;
}

void PipelineModel::price_work(PipelineEpoch& e) const {
  e.device_energy.assign(static_cast<std::size_t>(layout_.devices), 0);
  e.idle_energy_pj.assign(static_cast<std::size_t>(layout_.devices), 0);
  for (std::size_t d = 0; d < static_w_.size(); ++d)
    e.idle_energy_pj[d] = static_w_[d] * std::max(0.0, e.time_s - e.busy_s[d]) * 1e12;
  for (int d = 0; d < layout_.devices; ++d) {
    const auto i = static_cast<std::size_t>(d);
    const DeviceSpec& dev = spec_.system.devices[i];
    if (dev.model) {
      // Priced op by op by the device's own model when its stages were costed.
      e.device_energy[i] = e.device_priced[i].joules * 1e12;
    } else {
      price_totals(e.device_work[i], dev.accelerator);
      e.device_energy[i] = e.device_work[i].energy.total();
    }
  }
}

void accumulate(PipelineEpoch& into, const PipelineEpoch& e) {
  const std::size_t devices = e.device_work.size();
  into.busy_s.resize(devices, 0);
  into.device_work.resize(devices);
  into.device_priced.resize(devices);
  into.channels.resize(e.channels.size());
  into.batches.resize(e.batches.size(), 0);
  for (std::size_t k = 0; k < e.batches.size(); ++k) into.batches[k] += e.batches[k];
  into.time_s += e.time_s;
  for (std::size_t d = 0; d < devices; ++d) {
    into.busy_s[d] += e.busy_s[d];
    accumulate(into.device_work[d], e.device_work[d]);
    into.device_priced[d] += e.device_priced[d];
  }
  for (std::size_t c = 0; c < e.channels.size(); ++c) {
    into.channels[c].bytes += e.channels[c].bytes;
    into.channels[c].transfers += e.channels[c].transfers;
    into.channels[c].busy_s += e.channels[c].busy_s;
    into.channels[c].energy_pj += e.channels[c].energy_pj;
  }
}

const PipelineModel::DeviceBatchWork& PipelineModel::batch_work(int kind, int micro) {
  auto key = std::make_pair(kind, micro);
  auto it = work_.find(key);
  if (it != work_.end()) return it->second;
  DeviceBatchWork w;
  w.counted.resize(static_cast<std::size_t>(layout_.devices));
  w.priced.resize(static_cast<std::size_t>(layout_.devices));
  const TaskGraph& g = *single(kind, micro).graph;
  for (std::size_t i = 0; i < g.size(); ++i) {
    const Task& t = g.task(static_cast<int>(i));
    const auto d = static_cast<std::size_t>(t.device);
    const int first = first_[static_cast<std::size_t>(t.stage)];
    const int last = first_[static_cast<std::size_t>(t.stage) + 1];
    if (spec_.system.devices[d].model) {
      w.priced[d] += costs_.stage_priced(t.device, micro, kind, first, last, t.pass);
      continue;
    }
    for (const OpTotals& u : costs_.stage_work(t.device, micro, kind, first, last, t.pass))
      accumulate(w.counted[d], u);
  }
  return work_.emplace(key, std::move(w)).first->second;
}

}  // namespace trainsim
