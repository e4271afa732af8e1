#pragma once
// The `tiled` memory model (the default): every array op runs as the loop nest of its buffer
// mapping (mapping/search.h), tile by tile, with double-buffered DMA:
//   * before tile t can start, the operand tiles it needs that changed since tile t-1 (and
//     partial sums it revisits) must have arrived; they were requested when tile t-1
//     started (with double_buffer: false, when it finished);
//   * an output tile is written out after its last tile; a new output tile needs a free
//     output slot (the write of the output tile two back has finished);
//   * time per tile is therefore max(compute, transfer), plus the first fetch and the last
//     write-back, with the DRAM channel's bandwidth and latency and FCFS order.
// Element-wise ops stream through the buffer in chunks the same way. Operands the session
// keeps on chip between ops (Op::residency) are neither read nor written.
#include "mapping/search.h"
#include "sim/accel/memory_model.h"

namespace trainsim {

/// The mapping the tiled model uses for `op` (constraints and objective: acc.mapping).
SearchResult tiled_mapping(const Op& op, const AcceleratorSpec& acc, const Dataflow& df);

/// Any mapping of `op` as the search sees it (for tests and `trainsim layer --bound`): its
/// score (closed form where the schedule provably never waits, else the walk), the cycles of
/// the walk itself (which skips repeated loop iterations), of the walk stepping through
/// every tile, and the search's lower bounds on cycles and energy; the counts of both walks.
struct MappingCheck {
  MappingCost cost;
  MappingScore score;
  std::int64_t walked_cycles = 0, stepped_cycles = 0;
  OpStats walked, stepped;
  std::int64_t cycles_bound = 0;
  double energy_bound = 0;
};
MappingCheck check_mapping(const Op& op, const AcceleratorSpec& acc, const Dataflow& df,
                           const BufferMapping& m);

/// The model itself (registered as `tiled`).
const MemoryModel& tiled_memory();

}  // namespace trainsim
