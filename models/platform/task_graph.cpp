#include "models/platform/task_graph.h"

#include <algorithm>
#include <functional>
#include <queue>
#include <set>
#include <stdexcept>

#include "models/platform/stuck.h"
#include "sim/core/error.h"

namespace trainsim {

const char* pass_name(Pass p) {
  switch (p) {
    case Pass::kForward:
      return "F";
    case Pass::kBackward:
      return "B";
    case Pass::kBackwardData:
      return "Bd";
    case Pass::kBackwardWeight:
      return "W";
    case Pass::kUpdate:
      return "U";
    case Pass::kGradDone:
      return "G";
    case Pass::kReduce:
      return "R";
  }
  return "?";
}

std::string Task::label() const {
  std::string s = std::string(pass_name(pass)) + " b" + std::to_string(batch);
  const bool reduce = pass == Pass::kReduce;
  if (micro >= 0) s += (reduce ? " k" : " m") + std::to_string(micro);
  s += " s" + std::to_string(stage);
  if (micro < 0 || reduce) s += " r" + std::to_string(pipe);
  return s;
}

void check_layout(const PipelineLayout& l, int micro_batches) {
  if (l.devices < 1) throw UserError("a pipeline needs at least one device");
  if (l.stages < 1) throw UserError("a pipeline needs at least one stage");
  if (l.placement.empty()) throw UserError("a pipeline layout needs at least one pipe");
  for (const auto& pipe : l.placement) {
    if (static_cast<int>(pipe.size()) != l.stages)
      throw UserError("a pipe of the layout does not place every stage");
    for (int d : pipe)
      if (d < 0 || d >= l.devices)
        throw UserError("the layout places a stage on device " + std::to_string(d) +
                        ", which does not exist (" + std::to_string(l.devices) + " devices)");
  }
  if (static_cast<int>(l.micro_pipe.size()) != micro_batches)
    throw UserError("the layout assigns " + std::to_string(l.micro_pipe.size()) +
                    " micro-batches to pipes, not " + std::to_string(micro_batches));
  std::set<int> used;
  for (int p : l.micro_pipe) {
    if (p < 0 || p >= l.pipes()) throw UserError("a micro-batch is assigned to no pipe");
    used.insert(p);
  }
  if (static_cast<int>(used.size()) != l.pipes())
    throw UserError("every pipe of the layout needs at least one micro-batch");
}

std::int64_t TaskGraph::key(Pass pass, int batch, int micro, int stage, int pipe) const {
  const std::int64_t m = slots_, s = layout_.stages, p = layout_.pipes();
  const std::int64_t b = static_cast<std::int64_t>(spec_.batches.size());
  return (((static_cast<std::int64_t>(pass) * b + batch) * m + (micro + 1)) * s + stage) * p + pipe;
}

int TaskGraph::find(Pass pass, int batch, int micro, int stage, int pipe) const {
  if (index_.empty()) return -1;  // a given graph: no key addresses its tasks
  const int micros = pass == Pass::kReduce ? reduce_steps() : spec_.micro_batches;
  if (batch < 0 || batch >= static_cast<int>(spec_.batches.size()) || stage < 0 ||
      stage >= layout_.stages || micro < -1 || micro >= micros || pipe < 0 ||
      pipe >= layout_.pipes())
    return -1;
  return index_[static_cast<std::size_t>(key(pass, batch, micro, stage, pipe))];
}

void TaskGraph::set_edge_bytes(
    const std::function<std::int64_t(const Task& from, EdgeData data)>& bytes) {
  for (auto& deps : deps_)
    for (Edge& e : deps) e.bytes = bytes(tasks_[static_cast<std::size_t>(e.from)], e.data);
}

TaskGraph TaskGraph::given(int devices, std::vector<Task> tasks,
                           std::vector<std::vector<Edge>> deps) {
  if (tasks.size() != deps.size())
    throw std::logic_error("TaskGraph::given: one dependency list per task");
  PipelineLayout layout;
  layout.devices = devices;
  layout.placement = {{0}};
  layout.micro_pipe = {0};
  TaskGraph g(layout, GraphSpec{});
  g.tasks_ = std::move(tasks);
  g.deps_ = std::move(deps);
  g.index_.clear();
  g.users_.assign(g.tasks_.size(), {});
  for (std::size_t i = 0; i < g.deps_.size(); ++i) {
    for (const Edge& e : g.deps_[i]) {
      if (e.from < 0 || e.from >= static_cast<int>(g.tasks_.size()))
        throw std::logic_error("TaskGraph::given: an edge from a task that does not exist");
      g.users_[static_cast<std::size_t>(e.from)].push_back(static_cast<int>(i));
    }
  }
  for (const Task& t : g.tasks_)
    if (t.device < 0 || t.device >= devices)
      throw std::logic_error("TaskGraph::given: a task on a device that does not exist");
  return g;
}

int TaskGraph::add_task(const Task& t) {
  if (!index_.empty())
    throw std::logic_error("TaskGraph::add_task: the graph is built from a layout");
  if (t.device < 0 || t.device >= layout_.devices)
    throw std::logic_error("TaskGraph::add_task: a task on a device that does not exist");
  tasks_.push_back(t);
  deps_.emplace_back();
  users_.emplace_back();
  return static_cast<int>(tasks_.size()) - 1;
}

void TaskGraph::add_dep(int to, const Edge& e) {
  const int n = static_cast<int>(tasks_.size());
  if (to == e.from || to < 0 || e.from < 0 || to >= n || e.from >= n)
    throw std::logic_error("TaskGraph::add_dep: bad edge " + std::to_string(e.from) + " -> " +
                           std::to_string(to));
  for (Edge& have : deps_[static_cast<std::size_t>(to)]) {
    if (have.from != e.from) continue;
    have.bytes += e.bytes;
    if (have.data == EdgeData::kNone && e.data != EdgeData::kNone) {
      have.data = e.data;
      have.tensor = e.tensor;
    }
    return;
  }
  deps_[static_cast<std::size_t>(to)].push_back(e);
  users_[static_cast<std::size_t>(e.from)].push_back(to);
}

const Edge* TaskGraph::edge(int from, int to) const {
  for (const Edge& e : deps(to))
    if (e.from == from) return &e;
  return nullptr;
}

std::vector<int> TaskGraph::topological_order() const {
  std::vector<int> pending(tasks_.size());
  std::priority_queue<int, std::vector<int>, std::greater<int>> ready;
  for (std::size_t i = 0; i < tasks_.size(); ++i) {
    pending[i] = static_cast<int>(deps_[i].size());
    if (pending[i] == 0) ready.push(static_cast<int>(i));
  }
  std::vector<int> order;
  order.reserve(tasks_.size());
  while (!ready.empty()) {
    const int t = ready.top();
    ready.pop();
    order.push_back(t);
    for (int u : users(t))
      if (--pending[static_cast<std::size_t>(u)] == 0) ready.push(u);
  }
  if (order.size() != tasks_.size()) return {};
  return order;
}

int TaskGraph::add(const Task& t) {
  const int i = static_cast<int>(tasks_.size());
  tasks_.push_back(t);
  deps_.emplace_back();
  users_.emplace_back();
  index_[static_cast<std::size_t>(key(t.pass, t.batch, t.micro, t.stage, t.pipe))] = i;
  return i;
}

TaskGraph::TaskGraph(const PipelineLayout& layout, const GraphSpec& spec)
    : layout_(layout), spec_(spec) {
  if (spec_.micro_batches < 1) throw UserError("a pipeline needs at least one micro-batch");
  if (spec_.batches.empty()) throw UserError("a pipeline run needs at least one batch");
  check_layout(layout_, spec_.micro_batches);
  const int nb = static_cast<int>(spec_.batches.size()), nm = spec_.micro_batches;
  const int ns = layout_.stages, np = layout_.pipes();
  const int steps = reduce_steps();
  slots_ = std::max(nm, steps) + 1;
  index_.assign(static_cast<std::size_t>(kNumPasses) * nb * slots_ * ns * np, -1);
  const Pass back = spec_.split_backward ? Pass::kBackwardData : Pass::kBackward;

  // Tasks first (every dependency then exists when the edges are added).
  for (int b = 0; b < nb; ++b) {
    const bool bp = spec_.batches[static_cast<std::size_t>(b)] == BatchKind::kBackprop;
    for (int m = 0; m < nm; ++m) {
      const int p = layout_.micro_pipe[static_cast<std::size_t>(m)];
      for (int s = 0; s < ns; ++s) {
        const int d = layout_.device(p, s);
        add({Pass::kForward, b, m, s, p, d});
        if (!bp) continue;
        add({back, b, m, s, p, d});
        if (spec_.split_backward) add({Pass::kBackwardWeight, b, m, s, p, d});
      }
    }
    for (int s = 0; s < ns; ++s)
      for (int p = 0; p < np; ++p) {
        const int d = layout_.device(p, s);
        if (replicated()) add({Pass::kGradDone, b, -1, s, p, d});
        for (int k = 0; k < steps; ++k) add({Pass::kReduce, b, k, s, p, d});
        add({Pass::kUpdate, b, -1, s, p, d});
      }
  }

  auto edge = [&](int to, int from, EdgeData data) {
    if (from < 0) throw std::logic_error("pipeline task graph: missing dependency");
    deps_[static_cast<std::size_t>(to)].push_back({from, data});
    users_[static_cast<std::size_t>(from)].push_back(to);
  };
  for (int i = 0; i < static_cast<int>(tasks_.size()); ++i) {
    const Task t = tasks_[static_cast<std::size_t>(i)];
    const bool bp = spec_.batches[static_cast<std::size_t>(t.batch)] == BatchKind::kBackprop;
    // The tasks whose gradients the stage's update of this replica needs.
    auto gradients = [&](int target, int pipe) {
      for (int m = 0; m < nm; ++m) {
        if (layout_.micro_pipe[static_cast<std::size_t>(m)] != pipe) continue;
        const Pass last =
            !bp ? Pass::kForward : (spec_.split_backward ? Pass::kBackwardWeight : Pass::kBackward);
        edge(target, find(last, t.batch, m, t.stage, pipe), EdgeData::kNone);
      }
    };
    switch (t.pass) {
      case Pass::kForward:
        if (t.stage > 0)
          edge(i, find(Pass::kForward, t.batch, t.micro, t.stage - 1, t.pipe),
               EdgeData::kActivation);
        // Synchronous training: the stage's weights of the previous batch must be updated.
        if (t.batch > 0)
          edge(i, find(Pass::kUpdate, t.batch - 1, -1, t.stage, t.pipe), EdgeData::kNone);
        break;
      case Pass::kBackward:
      case Pass::kBackwardData:
        edge(i, find(Pass::kForward, t.batch, t.micro, t.stage, t.pipe), EdgeData::kNone);
        if (t.stage + 1 < ns)
          edge(i, find(t.pass, t.batch, t.micro, t.stage + 1, t.pipe), EdgeData::kGradient);
        break;
      case Pass::kBackwardWeight:
        edge(i, find(Pass::kBackwardData, t.batch, t.micro, t.stage, t.pipe), EdgeData::kNone);
        break;
      case Pass::kGradDone:
        gradients(i, t.pipe);
        break;
      case Pass::kReduce:
      case Pass::kUpdate: {
        if (!replicated()) {
          gradients(i, t.pipe);
          break;
        }
        // The ring all-reduce: step k follows the replica's own step k-1 and the chunk the
        // replica before it in the ring sent at its step k-1; the update follows the last
        // step the same way. Along the ring the steps' transfers follow one another: on
        // links without contention the all-reduce takes 2 (p-1) (S/p / B + latency).
        const int step = t.pass == Pass::kReduce ? t.micro : steps;
        if (step == 0) {
          edge(i, find(Pass::kGradDone, t.batch, -1, t.stage, t.pipe), EdgeData::kNone);
          break;
        }
        const int before = (t.pipe + np - 1) % np;
        edge(i, find(Pass::kReduce, t.batch, step - 1, t.stage, t.pipe), EdgeData::kNone);
        edge(i, find(Pass::kReduce, t.batch, step - 1, t.stage, before), EdgeData::kReduceChunk);
        break;
      }
    }
  }
}

void check_orders(const TaskGraph& g, const DeviceOrders& orders) {
  const int n = static_cast<int>(g.size());
  std::vector<int> seen(static_cast<std::size_t>(n), 0);
  if (static_cast<int>(orders.size()) != g.layout().devices)
    throw std::logic_error("pipeline schedule: one order per device expected");
  for (std::size_t d = 0; d < orders.size(); ++d)
    for (int i : orders[d]) {
      if (i < 0 || i >= n || g.task(i).device != static_cast<int>(d) ||
          beside_compute(g.task(i).pass) || seen[static_cast<std::size_t>(i)]++)
        throw std::logic_error("pipeline schedule: a task is misplaced or repeated");
    }
  for (int i = 0; i < n; ++i)
    if (!seen[static_cast<std::size_t>(i)] && !beside_compute(g.task(i).pass))
      throw StuckError("pipeline schedule: no device's order runs '" + g.task(i).label() +
                       "' (placed on dev" + std::to_string(g.task(i).device) + ")");
  // Run the orders without time: each device takes its next task once its inputs are done;
  // a task beside compute runs once its inputs are.
  std::vector<std::size_t> next(orders.size(), 0);
  std::vector<char> done(static_cast<std::size_t>(n), 0);
  auto inputs_done = [&](int i) {
    for (const Edge& e : g.deps(i))
      if (!done[static_cast<std::size_t>(e.from)]) return false;
    return true;
  };
  for (int finished = 0; finished < n;) {
    bool progress = false;
    for (int i = 0; i < n; ++i)
      if (beside_compute(g.task(i).pass) && !done[static_cast<std::size_t>(i)] && inputs_done(i)) {
        done[static_cast<std::size_t>(i)] = 1;
        ++finished, progress = true;
      }
    for (std::size_t d = 0; d < orders.size(); ++d)
      while (next[d] < orders[d].size()) {
        const int i = orders[d][next[d]];
        if (!inputs_done(i)) break;
        done[static_cast<std::size_t>(i)] = 1;
        ++next[d], ++finished, progress = true;
      }
    if (!progress)
      throw StuckError("pipeline schedule: the device orders cannot finish: " +
                       stuck_report(g, orders, next, done));
  }
}

}  // namespace trainsim
