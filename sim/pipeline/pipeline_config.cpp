#include "sim/pipeline/pipeline_config.h"

#include <string>

#include "models/platform/stuck.h"
#include "sim/core/error.h"
#include "sim/core/named_registry.h"
#include "sim/pipeline/schedule.h"
#include "sim/yaml/key_ranges.h"

namespace trainsim {

PipelineSpec parse_pipeline(const ConfigNode* node, const ConfigNode& top,
                            const ExperimentSpec& spec) {
  PipelineSpec p;
  const int devices = static_cast<int>(spec.system.devices.size());
  auto fail = [&](const std::string& key, const std::string& what) {
    if (node) {
      ConfigMap m = node->as_map();
      if (auto v = m.get(key)) v->fail(what);
      node->fail(what);
    }
    top.fail("pipeline: " + what);
  };
  if (node) {
    ConfigMap m = node->as_map();
    m.allow_only({"schedule", "micro_batches", "chunks", "replicas", "stages", "orders"});
    if (auto v = m.get("schedule")) {
      p.schedule = v->as_nonempty_string();
      if (registry_find(schedules(), p.schedule) == nullptr)
        v->fail("unknown schedule '" + p.schedule + "' (known: " + registry_names(schedules()) +
                ")");
    }
    if (auto v = m.get("micro_batches")) p.micro_batches = v->as_int_in(key_range::kMicroBatches);
    if (auto v = m.get("chunks")) p.chunks = v->as_int_in(key_range::kChunks);
    if (auto v = m.get("replicas")) p.replicas = v->as_int_in(key_range::kDevices);
    if (auto v = m.get("orders")) {
      for (const ConfigNode& list : v->as_sequence()) {
        p.orders.emplace_back();
        for (const ConfigNode& task : list.as_sequence())
          p.orders.back().push_back(task.as_nonempty_string());
      }
    }
    if (auto v = m.get("stages")) {
      if (v->is_scalar()) {
        v->as_choice({"auto"});
      } else {
        for (const ConfigNode& range : v->as_sequence()) {
          const std::vector<ConfigNode> ends = range.as_sequence();
          if (ends.size() != 2) range.fail("expected a layer range [first, last], e.g. [0, 3]");
          p.stages.push_back({ends[0].as_int_in(key_range::kLayerIndex),
                              ends[1].as_int_in(key_range::kLayerIndex)});
        }
      }
    }
  }
  // The orders are the custom schedule's data, and it has no other.
  const Schedule& schedule = schedule_named(p.schedule);
  if (!p.orders.empty() && !schedule.takes_orders())
    fail("orders", "pipeline.orders lists the device orders of schedule: custom (schedule is " +
                       p.schedule + ")");
  if (!spec.system.present()) return p;  // one device: the caller notes it is unused
  const int batch = spec.training.batch_size;
  // Micro-batches must split the batch evenly: unequal micro-batches would make stage
  // times differ by micro-batch, which the schedules' orders do not take into account.
  if (p.micro_batches > batch)
    fail("micro_batches", "micro_batches (" + std::to_string(p.micro_batches) +
                              ") is larger than training.batch_size (" + std::to_string(batch) +
                              ")");
  if (batch % p.micro_batches != 0)
    fail("micro_batches", "micro_batches (" + std::to_string(p.micro_batches) +
                              ") must divide training.batch_size (" + std::to_string(batch) + ")");
  if (devices % p.replicas != 0)
    fail("replicas", "replicas (" + std::to_string(p.replicas) + ") must divide the system's " +
                         std::to_string(devices) + " devices (each replica gets as many)");
  if (batch % p.total_micro_batches() != 0)
    fail("replicas", "replicas x micro_batches (" + std::to_string(p.replicas) + " x " +
                         std::to_string(p.micro_batches) + ") must divide training.batch_size (" +
                         std::to_string(batch) + ")");
  // The schedule lays out one replica: its devices are the system's over the replicas.
  const int per_replica = devices / p.replicas;
  const std::string on = p.replicas > 1 ? std::to_string(per_replica) + " devices (each of " +
                                              std::to_string(p.replicas) + " replicas)"
                                        : std::to_string(devices) + " devices";
  PipelineLayout layout;
  const ScheduleParams params = schedule_params(p, devices);
  const char* key = schedule.takes_orders() ? "orders" : "schedule";
  try {
    layout = schedule.layout(params);
  } catch (const UserError& e) {
    fail(key, std::string(e.what()) +
                  (p.replicas > 1 ? ", on " + on + " of the system's " + std::to_string(devices)
                                  : std::string()));
  }
  // The orders of a batch are proven before any run: one that cannot finish (a custom order
  // with a backward before its forward, devices waiting on each other) is refused here, naming
  // the device and the task it would wait for.
  {
    GraphSpec gs;
    gs.micro_batches = p.micro_batches;
    gs.batches = {BatchKind::kBackprop};
    gs.split_backward = schedule.split_backward(params);
    const TaskGraph g(layout, gs);
    try {
      PlanCosts unit;  // a schedule that orders by cost sees every task take as long
      unit.task_ps = [](const Task&) { return std::int64_t{1}; };
      unit.edge_ps = [](const Task&, const Task&, EdgeData) { return std::int64_t{0}; };
      check_orders(g, schedule.order(g, unit, params));
    } catch (const StuckError& e) {
      std::string why = e.what();  // "pipeline schedule: the device orders cannot finish: ..."
      const std::string own = "pipeline schedule: ";
      if (why.compare(0, own.size(), own) == 0) why.erase(0, own.size());
      fail(key, why);
    }
  }
  const int layers = static_cast<int>(spec.network.layers.size());
  if (layout.stages > layers)
    fail("schedule", "schedule " + p.schedule + " on " + on + " needs " +
                         std::to_string(layout.stages) + " stages, more than the network's " +
                         std::to_string(layers) + " layers");
  if (!p.stages.empty()) {
    if (static_cast<int>(p.stages.size()) != layout.stages)
      fail("stages", std::to_string(p.stages.size()) + " layer ranges given, but schedule " +
                         p.schedule + " on " + on + " has " + std::to_string(layout.stages) +
                         " stages");
    int next = 0;
    for (std::size_t i = 0; i < p.stages.size(); ++i) {
      const auto [first, last] = p.stages[i];
      const std::string which = "stage " + std::to_string(i) + " [" + std::to_string(first) + ", " +
                                std::to_string(last) + "]";
      if (first > last) fail("stages", which + " ends before it starts");
      if (first < next)
        fail("stages", which + " overlaps the stage before it (which ends at layer " +
                           std::to_string(next - 1) + ")");
      if (first > next)
        fail("stages", which + " leaves layers " + std::to_string(next) + ".." +
                           std::to_string(first - 1) + " in no stage");
      if (last >= layers)
        fail("stages",
             which + " goes past the network's last layer (" + std::to_string(layers - 1) + ")");
      next = last + 1;
    }
    if (next != layers)
      fail("stages", "the stages end at layer " + std::to_string(next - 1) + ", leaving layers " +
                         std::to_string(next) + ".." + std::to_string(layers - 1) + " in no stage");
  }
  return p;
}

}  // namespace trainsim
