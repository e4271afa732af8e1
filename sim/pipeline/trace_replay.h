#pragma once
// Chakra execution traces, one per device (sim/interop/chakra_trace.h), run on a system: every
// node becomes a task of one task graph (models/platform/task_graph.h), the list scheduler
// (list_scheduler.h) orders each device's tasks, and the platform (models/platform/) executes
// that order over the system's links, as a pipeline run's tasks are. What a node costs:
//   COMP_NODE       kDevice: an op of num_ops / 2 MACs over tensor_size bytes
//                   (sim/devices/work_op.h), priced by the device's own model; a node
//                   without num_ops takes its recorded duration, one with neither MACs nor
//                   bytes (a marker) no time. kTrace: the recorded duration (trainsim's
//                   duration_ps attribute, else duration_micros); a node without one is
//                   priced as under kDevice.
//   MEM_LOAD_NODE / MEM_STORE_NODE  kDevice: a stream of tensor_size bytes read (written),
//                   priced by the device's model (its memory roof), zero bytes no time;
//                   kTrace: the recorded duration, zero if none (trainsim's traces count the
//                   DRAM time in the COMP node).
//   COMM_SEND_NODE / COMM_RECV_NODE  a send and the recv with its comm_src, comm_dst and
//                   comm_tag (in order, when several share them) are one transfer of the
//                   send's comm_size bytes over the system's links; the device's
//                   communication engine runs them beside its compute.
//   METADATA_NODE   no time: its dependencies only.
// data_deps and ctrl_deps are dependencies within a device; each device runs one task at a
// time, the ready one that can start first, ties by trace order.
#include <cstdint>
#include <string>
#include <vector>

#include "models/platform/interconnect.h"
#include "sim/devices/device_model.h"
#include "sim/interop/chakra_trace.h"

namespace trainsim {

enum class ReplayTiming : std::uint8_t {
  kDevice,  ///< COMP and MEM nodes priced by the device's model
  kTrace,   ///< COMP and MEM nodes take the durations the trace recorded
};
/// "device", "trace"; parse: false if unknown.
const char* replay_timing_name(ReplayTiming t);
bool parse_replay_timing(const std::string& text, ReplayTiming& t);

struct ReplayDeviceStats {
  std::string file;  ///< the trace it ran
  std::int64_t comp_nodes = 0, mem_nodes = 0, sends = 0, recvs = 0, other_nodes = 0;
  std::int64_t busy_ps = 0;       ///< COMP and MEM nodes' time
  std::int64_t compute_ps = 0;    ///< COMP nodes'
  std::int64_t memory_ps = 0;     ///< MEM nodes'
  std::int64_t priced_nodes = 0;  ///< COMP and MEM nodes priced by the device's model
  /// Energy of the nodes the device's model priced (its static power over their time
  /// included), J; recorded durations carry none.
  double compute_j = 0, memory_j = 0;
  double idle_j = 0;  ///< static power over the makespan less the busy time, J
  double comm_j = 0;  ///< the links' energy of the transfers it sent, J
  std::int64_t sent_bytes = 0;
};

struct ReplayResult {
  std::int64_t makespan_ps = 0;
  std::int64_t nodes = 0;
  /// Dependencies within the devices (data_deps and ctrl_deps, a node named by both counted
  /// once), and transfers (matched send/recv pairs), each an edge of the task graph.
  std::int64_t dependencies = 0, transfers = 0;
  std::vector<ReplayDeviceStats> devices;
  double link_j = 0;  ///< all transfers' link energy, J
};

/// Runs traces[d] (read from files[d]) on devices[d], joined by `net`. UserError, one line
/// naming the file and the node, for a trace this cannot run: a COMP node with neither
/// num_ops nor a duration, a MEM node with neither tensor_size nor a duration, a collective
/// (COMM_COLL_NODE), a send or recv without its partner or naming a device not its own or
/// outside the system, a send and recv of different sizes, a dependency cycle across
/// devices, an op the device has no kernel for.
ReplayResult replay_traces(const std::vector<std::string>& files,
                           const std::vector<ChakraTrace>& traces,
                           const std::vector<DeviceModel*>& devices, const Interconnect& net,
                           ReplayTiming timing);

}  // namespace trainsim
