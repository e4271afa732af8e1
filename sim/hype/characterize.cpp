#include "sim/hype/characterize.h"

#include <algorithm>
#include <stdexcept>

namespace trainsim {

const char* threshold_combine_name(ThresholdCombine c) {
  return c == ThresholdCombine::kAnd ? "and" : "or";
}

bool parse_threshold_combine(const std::string& text, ThresholdCombine& c) {
  for (ThresholdCombine v : {ThresholdCombine::kAnd, ThresholdCombine::kOr})
    if (text == threshold_combine_name(v)) {
      c = v;
      return true;
    }
  return false;
}

bool OffloadThresholds::pass(const OpCost& gpu) const {
  const bool bw = gpu.bandwidth_gbps <= bandwidth_gbps;
  // A GPU without an IPC figure (NaN) cannot pass the IPC test.
  const bool ipc_ok = gpu.ipc <= ipc;
  return combine == ThresholdCombine::kAnd ? bw && ipc_ok : bw || ipc_ok;
}

bool big_offload_type(PaperOpType type) {
  // The five types Table 1 ran on three FPGAs (Sec. 3.2); the rest are microsecond ops.
  switch (type) {
    case PaperOpType::kMatMul:
    case PaperOpType::kConv2D:
    case PaperOpType::kConv2DBackpropFilter:
    case PaperOpType::kConv2DBackpropInput:
    case PaperOpType::kBiasAddGrad:
      return true;
    default:
      return false;
  }
}

namespace {

void check(const CharacterizeDevices& d) {
  if (!d.gpu || !d.offload || d.offload_count < 1 || !(d.link_gbps > 0))
    throw std::logic_error("characterize: a gpu, an offload device, a count and a link needed");
}

int offload_devices(const DagNode& n, const CharacterizeDevices& d) {
  return big_offload_type(n.type) ? d.offload_count : 1;
}

OpCost offload_cost(const DagNode& n, const CharacterizeDevices& d) {
  return d.offload->cost_split(n.op, offload_devices(n, d));
}

}  // namespace

OffloadThresholds auto_thresholds(const OpDag& dag, const CharacterizeDevices& devices,
                                  ThresholdCombine combine) {
  check(devices);
  OffloadThresholds t;
  t.combine = combine;
  // The larger of the two types' thresholds is the larger over both types' winning ops.
  for (int i = 0; i < dag.size(); ++i) {
    const DagNode& n = dag.node(i);
    if (n.type != PaperOpType::kMatMul && n.type != PaperOpType::kConv2D) continue;
    const OpCost g = devices.gpu->cost(n.op);
    const OpCost f = offload_cost(n, devices);
    if (!f.supported || !(f.time_s < g.time_s)) continue;
    t.bandwidth_gbps = std::max(t.bandwidth_gbps, g.bandwidth_gbps);
    if (g.ipc == g.ipc) t.ipc = std::max(t.ipc, g.ipc);
  }
  return t;
}

Characterization characterize(const OpDag& dag, const CharacterizeDevices& devices,
                              const OffloadThresholds& thresholds) {
  check(devices);
  Characterization c;
  c.thresholds = thresholds;
  c.ops.resize(static_cast<std::size_t>(dag.size()));
  std::vector<double> gpu_time(c.ops.size());
  for (int i = 0; i < dag.size(); ++i) {
    const DagNode& n = dag.node(i);
    OpCharacter& o = c.ops[static_cast<std::size_t>(i)];
    o.type = n.type;
    o.gpu = devices.gpu->cost(n.op);
    o.offload_devices = offload_devices(n, devices);
    o.offload = devices.offload->cost_split(n.op, o.offload_devices);
    gpu_time[static_cast<std::size_t>(i)] = o.gpu.time_s;
    // Inputs arrive once per producer edge; the result goes back once, however many read it.
    double in = 0, out = 0;
    for (const Edge& e : dag.graph().deps(i)) in += static_cast<double>(e.bytes);
    for (int u : dag.graph().users(i))
      out = std::max(out, static_cast<double>(dag.graph().edge(i, u)->bytes));
    o.transfer_s = 2 * (in + out) / (devices.link_gbps * 1e9);
  }
  const DagTimes times = dag_times(dag, gpu_time);
  c.gpu_makespan_s = times.makespan;
  for (int i = 0; i < dag.size(); ++i) {
    OpCharacter& o = c.ops[static_cast<std::size_t>(i)];
    o.slack_s = times.slack[static_cast<std::size_t>(i)];
    o.candidate = o.offload.supported && thresholds.pass(o.gpu);
    o.fast = o.candidate && o.offload.time_s < o.gpu.time_s;
    // Sec. 3.3 for small ops off the critical path, read as the op's own slack.
    o.slack_eligible = o.candidate && !o.fast && !big_offload_type(dag.node(i).type) &&
                       o.offload.time_s + o.transfer_s <= o.gpu.time_s + o.slack_s;
  }
  return c;
}

}  // namespace trainsim
