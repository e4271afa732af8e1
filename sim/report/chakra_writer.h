#pragma once
// Chakra execution traces (MLCommons Chakra, schema/protobuf/et_def.proto) of a run on a
// system of devices, one file per device, for ASTRA-sim 2.0: the timeline stretch of the run
// (sim/pipeline/pipeline_model.h) as
//   COMP_NODE       every pipeline task, with its duration and trainsim's cycles and MACs
//   MEM_LOAD_NODE   before a task, the bytes it reads from DRAM
//   MEM_STORE_NODE  after it, the bytes it writes back
//   COMM_SEND_NODE / COMM_RECV_NODE  every transfer between devices (activations,
//                   gradients, the replicas' weight gradients), on the producing and the
//                   consuming device, with comm_src, comm_dst, comm_size and comm_tag
// Dependencies are data_deps; each device's first node of a task also has a ctrl_dep on the
// last node of the task the device ran before it (the schedule's order). A file is a GlobalMetadata
// message and then the nodes, each preceded by its length as a varint, the way Chakra's own tools
// write them.
#include <string>
#include <vector>

#include "sim/pipeline/pipeline_model.h"

namespace trainsim {

struct ChakraCounts {
  std::vector<std::int64_t> comp, mem, send, recv;  ///< per device
};

/// Writes DIR/<prefix>.<device>.et for every device of `run`; returns what each holds.
ChakraCounts write_chakra_traces(const std::string& dir, const std::string& prefix,
                                 PipelineModel& model, const BatchRun& run);

}  // namespace trainsim
