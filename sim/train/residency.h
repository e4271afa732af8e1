#pragma once
// Inter-op residency: which tensors stay in the global buffer from one op to the next, so
// that the next op reads them there instead of from DRAM (and, when it is their last
// reader in the step, nobody writes them to DRAM at all). The session plans each unit's ops
// of a flush before they run; the tiled memory model prices the decisions
// (Op::residency).
//
// Between two consecutive ops at most one tensor is carried: the largest one the first op
// writes, or reads, and the second reads, of at most half the buffer. Carrying it constrains both
// ops' buffer mappings (it takes its whole footprint), so whether to carry is decided for the whole
// sequence at once: a dynamic programme over the links picks the set of carries with the least
// cycles (then DRAM traffic), each op priced by its cost model with the flags the choice
// implies. A tensor is written back to DRAM unless it is carried to the next op, nobody
// after that op reads it in the flush, the flush holds a whole training step or evaluation
// batch, and it does not outlive the step (weights and optimizer state always go back).
// Plans are memoized by the sequence of ops, which repeats every batch.
#include <map>
#include <vector>

#include "models/accelerator.h"
#include "sim/accel/cost_model.h"

namespace trainsim {

class ResidencyPlanner {
 public:
  /// Sets the residency of every op in `ops` (one unit's, in execution order). `whole_step`:
  /// the ops are a complete training step or evaluation batch, so a tensor nobody reads
  /// later in them is dead after its last reader.
  void plan(std::vector<OpRequest>& ops, bool whole_step, CostModel& cost);
  std::size_t plans() const { return cache_.size(); }

 private:
  std::map<std::vector<std::int64_t>, std::vector<Residency>> cache_;
  std::vector<std::int64_t> key_;
};

/// The planner's decision for one sequence, without memoization (tests).
std::vector<Residency> plan_residency(const std::vector<Op>& ops, bool whole_step, CostModel& cost);

}  // namespace trainsim
