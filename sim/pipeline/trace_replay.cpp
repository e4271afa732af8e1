#include "sim/pipeline/trace_replay.h"

#include <cmath>
#include <deque>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>

#include "models/platform/platform.h"
#include "sim/core/error.h"
#include "sim/devices/work_op.h"
#include "sim/pipeline/list_scheduler.h"

namespace trainsim {

const char* replay_timing_name(ReplayTiming t) {
  return t == ReplayTiming::kTrace ? "trace" : "device";
}

bool parse_replay_timing(const std::string& text, ReplayTiming& t) {
  for (ReplayTiming k : {ReplayTiming::kDevice, ReplayTiming::kTrace})
    if (text == replay_timing_name(k)) {
      t = k;
      return true;
    }
  return false;
}

namespace {

enum class Role : std::uint8_t { kComp, kMem, kSend, kRecv, kOther };

struct NodeRef {
  int device = 0;
  int pos = 0;  ///< in its file, from 0
  const ChakraNodeRecord* node = nullptr;
  Role role = Role::kOther;
};

// The replay's tasks, their costs and edges, built node by node.
class Replay {
 public:
  Replay(const std::vector<std::string>& files, const std::vector<ChakraTrace>& traces,
         const std::vector<DeviceModel*>& devices, const Interconnect& net, ReplayTiming timing)
      : files_(files), traces_(traces), devices_(devices), net_(net), timing_(timing) {}

  ReplayResult run() {
    index_nodes();
    add_dependencies();
    match_transfers();
    check_acyclic();
    price_nodes();
    return execute();
  }

 private:
  std::string where(int task) const {
    const NodeRef& r = refs_[static_cast<std::size_t>(task)];
    // As read_chakra_trace() names a node: its place in the file, then its id (and name).
    return files_[static_cast<std::size_t>(r.device)] + ": node " + std::to_string(r.pos) +
           " (id " + std::to_string(r.node->id) + ", '" + r.node->name + "')";
  }
  [[noreturn]] void fail(int task, const std::string& what) const {
    throw UserError(where(task) + ": " + what);
  }
  static const std::int64_t* attr(const ChakraNodeRecord& n, const char* name) {
    auto it = n.ints.find(name);
    return it == n.ints.end() ? nullptr : &it->second;
  }
  std::int64_t required(int task, const char* name) const {
    const std::int64_t* v = attr(*refs_[static_cast<std::size_t>(task)].node, name);
    if (!v) fail(task, std::string("missing attribute '") + name + "'");
    return *v;
  }

  void index_nodes() {
    const int n_dev = static_cast<int>(traces_.size());
    for (int d = 0; d < n_dev; ++d) {
      ids_.emplace_back();
      for (const ChakraNodeRecord& n : traces_[static_cast<std::size_t>(d)].nodes) {
        NodeRef r{d, static_cast<int>(ids_.back().size()), &n, Role::kOther};
        if (n.type == "COMP_NODE") r.role = Role::kComp;
        if (n.type == "MEM_LOAD_NODE" || n.type == "MEM_STORE_NODE") r.role = Role::kMem;
        if (n.type == "COMM_SEND_NODE") r.role = Role::kSend;
        if (n.type == "COMM_RECV_NODE") r.role = Role::kRecv;
        const int i = static_cast<int>(refs_.size());
        refs_.push_back(r);
        ids_.back()[n.id] = i;
        if (n.type == "COMM_COLL_NODE")
          fail(i,
               "a collective (COMM_COLL_NODE): a replay runs point-to-point sends and recvs "
               "only");
        Task t;
        // A send or recv is the work of the device's communication engine, beside compute.
        t.pass = r.role == Role::kSend || r.role == Role::kRecv ? Pass::kReduce : Pass::kForward;
        t.device = d;
        t.micro = static_cast<int>(ids_.back().size()) - 1;
        tasks_.push_back(t);
        deps_.emplace_back();
      }
    }
  }

  void add_dependencies() {
    for (int i = 0; i < static_cast<int>(refs_.size()); ++i) {
      const NodeRef& r = refs_[static_cast<std::size_t>(i)];
      std::set<std::uint64_t> on;
      for (const auto* list : {&r.node->data_deps, &r.node->ctrl_deps})
        for (std::uint64_t id : *list) on.insert(id);
      const auto& ids = ids_[static_cast<std::size_t>(r.device)];
      for (std::uint64_t id : on) {
        // read_chakra_trace() refused a dependency on a node its file does not hold.
        deps_[static_cast<std::size_t>(i)].push_back({ids.at(id), EdgeData::kNone});
        ++result_.dependencies;
      }
    }
  }

  void match_transfers() {
    const int n_dev = static_cast<int>(traces_.size());
    // (src, dst, tag) -> the sends not yet matched, in trace order.
    std::map<std::tuple<std::int64_t, std::int64_t, std::int64_t>, std::deque<int>> sends;
    auto endpoint = [&](int i, const char* key, bool own) {
      const std::int64_t v = required(i, key);
      const int d = refs_[static_cast<std::size_t>(i)].device;
      if (v < 0 || v >= n_dev)
        fail(i, std::string(key) + " " + std::to_string(v) + " is not a device of the system (" +
                    std::to_string(n_dev) + " devices)");
      if (own && v != d)
        fail(i, std::string(key) + " " + std::to_string(v) + " is not the trace's own device " +
                    std::to_string(d));
      return v;
    };
    for (int i = 0; i < static_cast<int>(refs_.size()); ++i)
      if (refs_[static_cast<std::size_t>(i)].role == Role::kSend) {
        const auto key = std::make_tuple(endpoint(i, "comm_src", true),
                                         endpoint(i, "comm_dst", false), required(i, "comm_tag"));
        if (std::get<0>(key) == std::get<1>(key)) fail(i, "a send to its own device");
        if (required(i, "comm_size") < 0) fail(i, "negative comm_size");
        sends[key].push_back(i);
      }
    send_bytes_.assign(refs_.size(), 0);
    for (int i = 0; i < static_cast<int>(refs_.size()); ++i) {
      if (refs_[static_cast<std::size_t>(i)].role != Role::kRecv) continue;
      const auto key = std::make_tuple(endpoint(i, "comm_src", false),
                                       endpoint(i, "comm_dst", true), required(i, "comm_tag"));
      auto it = sends.find(key);
      if (it == sends.end() || it->second.empty())
        fail(i, "a recv from device " + std::to_string(std::get<0>(key)) + " with comm_tag " +
                    std::to_string(std::get<2>(key)) + " that no send of that device matches");
      const int s = it->second.front();
      it->second.pop_front();
      const std::int64_t bytes = required(s, "comm_size");
      if (const std::int64_t* size = attr(*refs_[static_cast<std::size_t>(i)].node, "comm_size"))
        if (*size != bytes)
          fail(i, "comm_size " + std::to_string(*size) + " differs from its send's " +
                      std::to_string(bytes) + " (" + where(s) + ")");
      send_bytes_[static_cast<std::size_t>(s)] = bytes;
      deps_[static_cast<std::size_t>(i)].push_back({s, EdgeData::kActivation});
      ++result_.transfers;
    }
    for (const auto& entry : sends)
      if (!entry.second.empty())
        fail(entry.second.front(),
             "a send to device " + std::to_string(std::get<1>(entry.first)) + " with comm_tag " +
                 std::to_string(std::get<2>(entry.first)) + " that no recv of that device matches");
  }

  // Within a file every dependency is on an earlier node; a cycle can only close through
  // transfers. Kahn's order; what it cannot order waits on a cycle or downstream of one.
  void check_acyclic() const {
    const std::size_t n = refs_.size();
    std::vector<int> waiting(n);
    std::vector<std::vector<int>> users(n);
    std::vector<int> ready;
    for (std::size_t i = 0; i < n; ++i) {
      waiting[i] = static_cast<int>(deps_[i].size());
      for (const Edge& e : deps_[i])
        users[static_cast<std::size_t>(e.from)].push_back(static_cast<int>(i));
      if (waiting[i] == 0) ready.push_back(static_cast<int>(i));
    }
    std::size_t done = 0;
    while (!ready.empty()) {
      const int i = ready.back();
      ready.pop_back();
      ++done;
      for (int u : users[static_cast<std::size_t>(i)])
        if (--waiting[static_cast<std::size_t>(u)] == 0) ready.push_back(u);
    }
    if (done == n) return;
    // Walk back along unordered dependencies until a node repeats: it is on a cycle.
    int at = 0;
    while (waiting[static_cast<std::size_t>(at)] == 0) ++at;
    std::vector<char> seen(n, 0);
    while (!seen[static_cast<std::size_t>(at)]) {
      seen[static_cast<std::size_t>(at)] = 1;
      for (const Edge& e : deps_[static_cast<std::size_t>(at)])
        if (waiting[static_cast<std::size_t>(e.from)] > 0) {
          at = e.from;
          break;
        }
    }
    fail(at, "on a dependency cycle (through a send and recv between devices)");
  }

  std::int64_t recorded_ps(const ChakraNodeRecord& n) const {
    if (const std::int64_t* ps = attr(n, "duration_ps")) return *ps;
    return static_cast<std::int64_t>(n.duration_micros) * 1000000;
  }
  static bool has_duration(const ChakraNodeRecord& n) {
    return n.ints.count("duration_ps") > 0 || n.duration_micros > 0;
  }

  void priced(int i, const Op& op, bool memory) {
    const int d = refs_[static_cast<std::size_t>(i)].device;
    DeviceModel& m = *devices_[static_cast<std::size_t>(d)];
    const OpCost c = m.cost(op);
    if (!c.supported)
      fail(i, "device '" + m.name() + "' (" + m.kind() + ") has no kernel for " + op.describe());
    duration_[static_cast<std::size_t>(i)] =
        static_cast<std::int64_t>(std::llround(c.time_s * 1e12));
    ReplayDeviceStats& s = result_.devices[static_cast<std::size_t>(d)];
    (memory ? s.memory_j : s.compute_j) += c.energy_j;
    ++s.priced_nodes;
  }

  void price_nodes() {
    result_.devices.resize(traces_.size());
    for (std::size_t d = 0; d < traces_.size(); ++d) result_.devices[d].file = files_[d];
    duration_.assign(refs_.size(), 0);
    for (int i = 0; i < static_cast<int>(refs_.size()); ++i) {
      const NodeRef& r = refs_[static_cast<std::size_t>(i)];
      const ChakraNodeRecord& n = *r.node;
      ReplayDeviceStats& s = result_.devices[static_cast<std::size_t>(r.device)];
      const int word = devices_[static_cast<std::size_t>(r.device)]->word_bytes();
      const std::int64_t* size = attr(n, "tensor_size");
      if (size && *size < 0) fail(i, "negative tensor_size");
      const double bytes = size ? static_cast<double>(*size) : 0;
      switch (r.role) {
        case Role::kComp: {
          ++s.comp_nodes;
          const std::int64_t* ops = attr(n, "num_ops");
          if (ops && *ops < 0) fail(i, "negative num_ops");
          if (!ops && !has_duration(n)) fail(i, "a COMP node with neither num_ops nor a duration");
          const bool by_device = ops && (timing_ == ReplayTiming::kDevice || !has_duration(n));
          if (!by_device)
            duration_[static_cast<std::size_t>(i)] = recorded_ps(n);
          else if (*ops + bytes > 0)
            priced(i, op_for_work(static_cast<double>(*ops) / 2, bytes, word), false);
          // else a node of no work (a marker): no time, no kernel launched for it
          s.compute_ps += duration_[static_cast<std::size_t>(i)];
          break;
        }
        case Role::kMem: {
          ++s.mem_nodes;
          if (timing_ == ReplayTiming::kTrace || !size) {
            if (!size && !has_duration(n))
              fail(i, "a MEM node with neither tensor_size nor a duration");
            duration_[static_cast<std::size_t>(i)] = recorded_ps(n);
          } else if (bytes > 0) {  // nothing to move: no time
            priced(i, op_for_work(0, bytes, word, n.type == "MEM_STORE_NODE"), true);
          }
          s.memory_ps += duration_[static_cast<std::size_t>(i)];
          break;
        }
        case Role::kSend:
          ++s.sends;
          break;
        case Role::kRecv:
          ++s.recvs;
          break;
        case Role::kOther:
          ++s.other_nodes;
          break;
      }
    }
  }

  ReplayResult execute() {
    TaskGraph g =
        TaskGraph::given(static_cast<int>(traces_.size()), std::move(tasks_), std::move(deps_));
    // A platform task is a TaskGraph element: its index is its place in the graph's vector.
    auto index = [&g](const Task& t) { return static_cast<std::size_t>(&t - g.tasks().data()); };
    // What a node sends: its trace's tensor, to each of its receivers.
    g.set_edge_bytes([&](const Task& from, EdgeData) { return send_bytes_[index(from)]; });
    PlanCosts costs;
    costs.task_ps = [&](const Task& t) { return duration_[index(t)]; };
    costs.edge_ps = [&](const Task& from, const Task& to, EdgeData) {
      return net_.transfer_ps(from.device, to.device, send_bytes_[index(from)]);
    };
    ListPolicy policy;
    policy.priority = [](const Task&) { return std::array<int, 4>{}; };  // then trace order
    const DeviceOrders orders = list_schedule(g, costs, policy);
    PlatformWork work;
    work.graph = &g;
    work.orders = &orders;
    work.duration_ps = duration_;
    const PlatformResult p = run_platform(net_, work);

    result_.makespan_ps = p.makespan_ps;
    result_.nodes = static_cast<std::int64_t>(refs_.size());
    for (std::size_t d = 0; d < result_.devices.size(); ++d) {
      ReplayDeviceStats& s = result_.devices[d];
      s.busy_ps = p.busy_ps[d];
      s.idle_j = devices_[d]->static_w() * static_cast<double>(p.makespan_ps - s.busy_ps) * 1e-12;
    }
    // Every hop's energy, to the device that sent the transfer (the recv's source).
    for (const TransferRecord& t : p.transfers) {
      const double j = static_cast<double>(t.bytes) * 8.0 *
                       net_.channels()[static_cast<std::size_t>(t.channel)].link.pj_per_bit * 1e-12;
      const auto& src = refs_[static_cast<std::size_t>(t.task)];
      const int from = static_cast<int>(*attr(*src.node, "comm_src"));
      result_.devices[static_cast<std::size_t>(from)].comm_j += j;
      result_.link_j += j;
    }
    for (std::size_t i = 0; i < refs_.size(); ++i)
      if (refs_[i].role == Role::kSend)
        result_.devices[static_cast<std::size_t>(refs_[i].device)].sent_bytes += send_bytes_[i];
    return result_;
  }

  const std::vector<std::string>& files_;
  const std::vector<ChakraTrace>& traces_;
  const std::vector<DeviceModel*>& devices_;
  const Interconnect& net_;
  ReplayTiming timing_;
  std::vector<NodeRef> refs_;                                // by task index
  std::vector<std::unordered_map<std::uint64_t, int>> ids_;  // [device] node id -> task
  std::vector<Task> tasks_;
  std::vector<std::vector<Edge>> deps_;
  std::vector<std::int64_t> duration_, send_bytes_;  // by task index
  ReplayResult result_;
};

}  // namespace

ReplayResult replay_traces(const std::vector<std::string>& files,
                           const std::vector<ChakraTrace>& traces,
                           const std::vector<DeviceModel*>& devices, const Interconnect& net,
                           ReplayTiming timing) {
  if (files.size() != traces.size() || devices.size() != traces.size())
    throw std::logic_error("replay_traces: one file and one device per trace");
  if (net.spec().devices != static_cast<int>(traces.size()))
    throw std::logic_error("replay_traces: the links join another number of devices");
  return Replay(files, traces, devices, net, timing).run();
}

}  // namespace trainsim
