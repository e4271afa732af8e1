#include "sim/report/chakra_writer.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <queue>

#include "et_def.pb.h"

#include "sim/core/error.h"
#include "sim/interop/chakra_trace.h"

namespace trainsim {

namespace {

namespace chakra = ChakraProtoMsg;

chakra::AttributeProto attr_u64(const std::string& name, std::uint64_t v) {
  chakra::AttributeProto a;
  a.set_name(name);
  a.set_uint64_val(v);  // a oneof member: serialized even when zero
  return a;
}

chakra::AttributeProto attr_i64(const std::string& name, std::int64_t v) {
  chakra::AttributeProto a;
  a.set_name(name);
  a.set_int64_val(v);
  return a;
}

chakra::AttributeProto attr_bool(const std::string& name, bool v) {
  chakra::AttributeProto a;
  a.set_name(name);
  a.set_bool_val(v);
  return a;
}

struct NodeOut {
  std::uint64_t id = 0;
  std::string name;
  chakra::NodeType type = chakra::COMP_NODE;
  std::vector<std::uint64_t> deps, ctrl;
  std::uint64_t start_us = 0, duration_us = 0;
  std::vector<chakra::AttributeProto> attrs;
  chakra::Node message() const {
    chakra::Node n;
    n.set_id(id);
    n.set_name(name);
    n.set_type(type);
    for (std::uint64_t d : deps) n.add_data_deps(d);
    for (std::uint64_t d : ctrl) n.add_ctrl_deps(d);
    n.set_start_time_micros(start_us);
    n.set_duration_micros(duration_us);
    for (const auto& a : attrs) *n.add_attr() = a;
    return n;
  }
};

std::uint64_t micros(std::int64_t ps) {
  return static_cast<std::uint64_t>(std::llround(static_cast<double>(ps) * 1e-6));
}

}  // namespace

ChakraCounts write_chakra_traces(const std::string& dir, const std::string& prefix,
                                 PipelineModel& model, const BatchRun& run) {
  const TaskGraph& g = *run.graph;
  const int devices = g.layout().devices;
  std::filesystem::create_directories(dir);
  std::vector<std::vector<NodeOut>> nodes(static_cast<std::size_t>(devices));
  std::vector<std::uint64_t> next_id(static_cast<std::size_t>(devices), 0);
  ChakraCounts counts;
  for (auto* v : {&counts.comp, &counts.mem, &counts.send, &counts.recv})
    v->assign(static_cast<std::size_t>(devices), 0);
  auto add = [&](int device, NodeOut n) {
    n.id = next_id[static_cast<std::size_t>(device)]++;
    nodes[static_cast<std::size_t>(device)].push_back(n);
    return n.id;
  };
  const auto& first = model.stage_first();
  // Per task, in each device's order: its recvs, its load, the compute, its store, its sends.
  std::map<int, std::uint64_t> done;                     // task -> node ending it
  std::map<std::pair<int, int>, std::uint64_t> recv_of;  // (consumer, producer) -> recv
  int tag = 0;
  std::map<std::pair<int, int>, int> tags;  // (producer, consumer) -> tag
  for (std::size_t i = 0; i < g.size(); ++i)
    for (int u : g.users(static_cast<int>(i)))
      if (g.task(u).device != g.task(static_cast<int>(i)).device)
        tags[{static_cast<int>(i), u}] = tag++;
  // Tasks in a topological order, earliest start first among the ready ones, so every
  // dependency's node exists when a node is written.
  std::vector<int> order;
  {
    std::vector<int> waiting(g.size());
    using Ready = std::pair<std::int64_t, int>;
    std::priority_queue<Ready, std::vector<Ready>, std::greater<Ready>> ready;
    for (std::size_t i = 0; i < g.size(); ++i) {
      waiting[i] = static_cast<int>(g.deps(static_cast<int>(i)).size());
      if (waiting[i] == 0) ready.push({run.result.tasks[i].start_ps, static_cast<int>(i)});
    }
    while (!ready.empty()) {
      const int i = ready.top().second;
      ready.pop();
      order.push_back(i);
      for (int u : g.users(i))
        if (--waiting[static_cast<std::size_t>(u)] == 0)
          ready.push({run.result.tasks[static_cast<std::size_t>(u)].start_ps, u});
    }
  }
  const int kind_micro = run.micro;
  // The node that ended each device's previous task: the next task's first node waits for it
  // (a ctrl_dep), so the trace keeps the order the schedule gave each device, which its data
  // dependencies alone do not fix (GPipe's last stage could run a backward pass before the
  // next micro-batch's forward).
  std::vector<std::optional<std::uint64_t>> device_last(static_cast<std::size_t>(devices));
  auto in_order = [&](int device, NodeOut& n) {
    const auto& prev = device_last[static_cast<std::size_t>(device)];
    if (prev && std::find(n.deps.begin(), n.deps.end(), *prev) == n.deps.end())
      n.ctrl.push_back(*prev);
  };
  for (int i : order) {
    const Task& t = g.task(i);
    const TaskTiming& time = run.result.tasks[static_cast<std::size_t>(i)];
    std::vector<std::uint64_t> deps;
    for (const Edge& e : g.deps(i)) {
      const Task& from = g.task(e.from);
      if (from.device == t.device) {
        deps.push_back(done.at(e.from));
        continue;
      }
      NodeOut r;
      r.name = "recv " + from.label() + " -> " + t.label();
      r.type = chakra::COMM_RECV_NODE;
      r.start_us = micros(time.start_ps);
      const std::int64_t bytes = model.edge_bytes(from, e.data, kind_micro);
      r.attrs = {attr_i64("comm_src", from.device), attr_i64("comm_dst", t.device),
                 attr_u64("comm_size", static_cast<std::uint64_t>(bytes)),
                 attr_i64("comm_tag", tags.at({e.from, i})), attr_bool("is_cpu_op", false)};
      deps.push_back(add(t.device, r));
      ++counts.recv[static_cast<std::size_t>(t.device)];
    }
    bool first_in_order = false;  // the task's load waits for the device's previous task
    const int kind = run.kinds[static_cast<std::size_t>(t.batch)];
    const int first_layer = first[static_cast<std::size_t>(t.stage)];
    const int last_layer = first[static_cast<std::size_t>(t.stage) + 1];
    std::uint64_t macs = 0, read_bytes = 0, write_bytes = 0;
    std::int64_t cycles = 0;
    if (model.spec().system.devices[static_cast<std::size_t>(t.device)].model) {
      // A device that prices its ops itself: its MACs and memory bytes, no cycles of a clock
      // of trainsim's (its traffic is not split into reads and writes: loaded, as a whole).
      const PricedWork w =
          model.costs().stage_priced(t.device, kind_micro, kind, first_layer, last_layer, t.pass);
      macs = static_cast<std::uint64_t>(w.macs);
      read_bytes = static_cast<std::uint64_t>(std::llround(w.bytes));
    } else {
      OpStats stats;
      for (const OpTotals& w :
           model.costs().stage_work(t.device, kind_micro, kind, first_layer, last_layer, t.pass))
        stats += w.stats;
      macs = stats.macs;
      read_bytes = stats.dram_read_bytes[0] + stats.dram_read_bytes[1] + stats.dram_read_bytes[2];
      write_bytes =
          stats.dram_write_bytes[0] + stats.dram_write_bytes[1] + stats.dram_write_bytes[2];
      cycles = stats.cycles();
    }
    if (read_bytes > 0) {
      NodeOut m;
      m.name = "load " + t.label();
      m.type = chakra::MEM_LOAD_NODE;
      m.deps = deps;
      m.start_us = micros(time.start_ps);
      m.attrs = {attr_u64("tensor_size", read_bytes), attr_bool("is_cpu_op", false)};
      if (!beside_compute(t.pass)) in_order(t.device, m);
      deps = {add(t.device, m)};
      first_in_order = true;
      ++counts.mem[static_cast<std::size_t>(t.device)];
    }
    NodeOut c;
    c.name = t.label();
    c.type = chakra::COMP_NODE;
    c.deps = deps;
    if (!first_in_order && !beside_compute(t.pass)) in_order(t.device, c);
    c.start_us = micros(time.start_ps);
    c.duration_us = micros(time.end_ps - time.start_ps);
    c.attrs = {attr_u64("num_ops", 2 * macs), attr_u64("tensor_size", read_bytes),
               attr_i64("duration_ps", time.end_ps - time.start_ps), attr_i64("cycles", cycles),
               attr_bool("is_cpu_op", false)};
    std::uint64_t last = add(t.device, c);
    ++counts.comp[static_cast<std::size_t>(t.device)];
    if (write_bytes > 0) {
      NodeOut m;
      m.name = "store " + t.label();
      m.type = chakra::MEM_STORE_NODE;
      m.deps = {last};
      m.start_us = micros(time.end_ps);
      m.attrs = {attr_u64("tensor_size", write_bytes), attr_bool("is_cpu_op", false)};
      last = add(t.device, m);
      ++counts.mem[static_cast<std::size_t>(t.device)];
    }
    done[i] = last;
    if (!beside_compute(t.pass)) device_last[static_cast<std::size_t>(t.device)] = last;
    for (int u : g.users(i)) {
      const Task& ut = g.task(u);
      if (ut.device == t.device) continue;
      EdgeData data = EdgeData::kNone;
      for (const Edge& e : g.deps(u))
        if (e.from == i) data = e.data;
      NodeOut s;
      s.name = "send " + t.label() + " -> " + ut.label();
      s.type = chakra::COMM_SEND_NODE;
      s.deps = {last};
      s.start_us = micros(time.end_ps);
      s.attrs = {
          attr_i64("comm_src", t.device), attr_i64("comm_dst", ut.device),
          attr_u64("comm_size", static_cast<std::uint64_t>(model.edge_bytes(t, data, kind_micro))),
          attr_i64("comm_tag", tags.at({i, u})), attr_bool("is_cpu_op", false)};
      add(t.device, s);
      ++counts.send[static_cast<std::size_t>(t.device)];
    }
  }
  for (int d = 0; d < devices; ++d) {
    std::vector<chakra::Node> messages;
    for (const NodeOut& n : nodes[static_cast<std::size_t>(d)]) messages.push_back(n.message());
    const std::string path = dir + "/" + prefix + "." + std::to_string(d) + ".et";
    write_chakra_trace(path, messages);
  }
  return counts;
}

}  // namespace trainsim
