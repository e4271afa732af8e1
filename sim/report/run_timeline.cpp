#include "sim/report/run_timeline.h"

#include <algorithm>

#include "sim/io/json_writer.h"

namespace trainsim {

namespace {

const char* const kPhaseNames[kNumPhases] = {"train", "eval"};

}  // namespace

std::string run_timeline_json(const AcceleratorSession& session) {
  const AcceleratorSpec& acc = session.accelerator();
  const bool own = session.own_unit();
  // Tracks: 0 main array, 1 main vector unit, then the technique's array and vector unit.
  // A second unit without an array of its own runs on the main units' tracks.
  std::vector<std::string> tracks = {acc.name + " PE array", acc.name + " vector unit"};
  if (own) {
    const std::string unit = own_array_spec(session.hardware(), acc).name;
    tracks.push_back(unit + " PE array");
    tracks.push_back(unit + " vector unit");
  }
  // The DRAM channel every unit shares: each op's traffic as one transfer at the channel's
  // bandwidth, in the order the ops start, each waiting for the one before (the channel's
  // own first-come rule, models/shared_channel.h; the model splits an op's traffic into its
  // tiles' transfers, which this draws as one).
  const int dram_track = static_cast<int>(tracks.size());
  tracks.push_back(acc.name + " DRAM channel");
  JsonWriter w;
  w.begin_object().key("traceEvents").begin_array();
  for (std::size_t t = 0; t < tracks.size(); ++t) {
    w.begin_object().field("name", "thread_name").field("ph", "M").field("pid", 0);
    w.field("tid", static_cast<std::uint64_t>(t));
    w.key("args").begin_object().field("name", tracks[t]).end_object().end_object();
  }
  const NetShape& net = session.shape();
  auto layer_name = [&](const TraceOp& op) {
    return op.layer >= 0 && static_cast<std::size_t>(op.layer) < net.size()
               ? net.layer_spec(static_cast<std::size_t>(op.layer)).name
               : std::to_string(op.layer);
  };
  for (const TraceOp& op : session.record().trace()) {
    const int track = (own && op.unit == 1 ? 2 : 0) + (op.array ? 0 : 1);
    const char* role = role_name(static_cast<OpRole>(op.role));
    w.begin_object().field("name", layer_name(op) + " " + role).field("cat", role);
    w.field("ph", "X").field("ts", static_cast<double>(op.start_ps) * 1e-6);  // microseconds
    w.field("dur", static_cast<double>(op.end_ps - op.start_ps) * 1e-6);
    w.field("pid", 0).field("tid", track).key("args").begin_object();
    w.field("layer", op.layer);
    w.field("phase", kPhaseNames[op.phase < kNumPhases ? op.phase : 0]);
    w.field("macs", op.macs).field("dram_bytes", op.dram_bytes).end_object().end_object();
  }
  std::vector<const TraceOp*> by_start;
  for (const TraceOp& op : session.record().trace())
    if (op.dram_bytes > 0) by_start.push_back(&op);
  std::stable_sort(by_start.begin(), by_start.end(),
                   [](const TraceOp* a, const TraceOp* b) { return a->start_ps < b->start_ps; });
  const double bytes_per_ps = acc.dram.bandwidth_gbps * 1e-3;  // GB/s = 1e-3 bytes per ps
  double free_ps = 0;
  for (const TraceOp* op : by_start) {
    if (!(bytes_per_ps > 0)) break;
    const double start = std::max(static_cast<double>(op->start_ps), free_ps);
    const double dur = static_cast<double>(op->dram_bytes) / bytes_per_ps;
    free_ps = start + dur;
    const char* role = role_name(static_cast<OpRole>(op->role));
    w.begin_object().field("name", layer_name(*op) + " " + role + " DRAM").field("cat", "dram");
    w.field("ph", "X").field("ts", start * 1e-6).field("dur", dur * 1e-6);
    w.field("pid", 0).field("tid", dram_track).key("args").begin_object();
    w.field("layer", op->layer).field("bytes", op->dram_bytes).end_object().end_object();
  }
  // Compact: the window of a 200-layer network is tens of thousands of slices.
  w.end_array().field("displayTimeUnit", "ns").end_object();
  return w.take() + "\n";
}

}  // namespace trainsim
