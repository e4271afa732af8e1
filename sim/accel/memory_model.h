#pragma once
// One interface per memory model (`trainsim list memory`): how an op's operands move
// between DRAM and the global buffer, and what that costs in traffic, buffer accesses and
// time. A model describes one op's schedule once, against an ExecutionContext; the fast
// fidelity runs it in closed form (FastContext: the dataflow's closed-form cost per array
// pass, a private DRAM channel), the cycle fidelity in SystemC time (the clocked PE array,
// the shared DRAM channel). Both fidelities therefore agree by construction wherever the
// dataflow's two fidelities agree, and units that share the DRAM channel delay each other in
// the cycle fidelity at the granularity the model schedules (op or tile).
//
//   tiled     the default: a buffer-level loop nest per op (mapping/), double-buffered DMA,
//             inter-op residency (sim/train/residency.h)
//   scalesim  SCALE-Sim's per-op streaming model (sim/accel/scalesim_memory.h)
#include <cstdint>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "dataflows/dataflow.h"
#include "dataflows/tile_values.h"
#include "mapping/problem.h"
#include "sim/spec/accel_spec.h"
#include "sim/spec/op_stats.h"

namespace trainsim {

/// Where a memory model's schedule runs. Times are cycles since the op started; transfers
/// are issued now and served first come, first served by the DRAM channel.
class ExecutionContext {
 public:
  virtual ~ExecutionContext() = default;
  virtual std::int64_t now() const = 0;
  virtual void wait_until(std::int64_t cycle) = 0;
  /// Issues `bytes` of DRAM traffic now; returns the cycle the last byte arrives (now for 0).
  virtual std::int64_t transfer(std::int64_t bytes) = 0;
  /// Runs one pass of the PE array now: `tile`, which is `box` of the problem `p` (both null:
  /// `tile` is the whole op). Time advances by its compute cycles; returns its array-side
  /// counts (valid until the next call).
  virtual const OpStats& compute(const Op& tile, const NestProblem* p, const TileBox* box) = 0;
  /// compute(tile_op(p, box), &p, &box): a context that caches by tile need not build the op.
  virtual const OpStats& compute_tile(const NestProblem& p, const TileBox& box) {
    return compute(tile_op(p, box), &p, &box);
  }
  /// The vector unit (or anything else that is not the PE array) is busy for `cycles`.
  virtual void busy(std::int64_t cycles) = 0;
  /// Whether compute() moves real operand values (the cycle fidelity).
  virtual bool clocks_values() const { return false; }
  /// Whether the context times a schedule alone (a private DRAM channel, nothing clocked, as
  /// the fast fidelity): a memory model may then compute a schedule's time in closed form,
  /// provided it is exactly the time running it would take, pricing tiles with tile_cost()
  /// and moving the clock with wait_until().
  virtual bool times_alone() const { return false; }
  /// The array's cost of a tile, without running it (contexts that time alone).
  virtual const OpStats& tile_cost(const NestProblem& p, const TileBox& box) {
    throw std::logic_error("ExecutionContext::tile_cost: this context runs every tile");
  }
  /// Contexts that time alone: the cycle the DRAM channel is free again, and a jump of the
  /// clock and the channel to given cycles (a schedule that provably repeats skips the
  /// repetitions: its arithmetic is sums and maxima of cycles, unchanged by a shift).
  virtual std::int64_t channel_free() const {
    throw std::logic_error("ExecutionContext::channel_free: this context runs every tile");
  }
  virtual void jump(std::int64_t now, std::int64_t channel_free) {
    throw std::logic_error("ExecutionContext::jump: this context runs every tile");
  }
};

class MemoryModel {
 public:
  virtual ~MemoryModel() = default;
  virtual std::string name() const = 0;
  virtual std::string description() const = 0;
  /// Whether ops' residency flags mean anything to it (the session plans them only then).
  virtual bool plans_residency() const = 0;
  /// Runs one repetition of a GEMM or conv op; returns its counts, array side included.
  /// compute_cycles is the array's busy time; the caller derives the stall from elapsed time.
  /// Throws UserError if the op cannot be placed in the buffer.
  virtual OpStats run(const Op& op, const AcceleratorSpec& acc, const Dataflow& df,
                      ExecutionContext& ctx) const = 0;
  /// The same for an element-wise op on the vector unit.
  virtual OpStats run_elementwise(const Op& op, const AcceleratorSpec& acc,
                                  ExecutionContext& ctx) const = 0;
  /// How the model places an array op in the buffer, as text (`trainsim layer --mapping`)
  /// and as JSON (`--json`); empty for a model that does not tile.
  virtual std::string plan_text(const Op& op, const AcceleratorSpec& acc,
                                const Dataflow& df) const {
    return "";
  }
  virtual nlohmann::ordered_json plan_json(const Op& op, const AcceleratorSpec& acc,
                                           const Dataflow& df) const {
    return nullptr;
  }
};

const std::vector<const MemoryModel*>& memory_models();
const MemoryModel* find_memory_model(const std::string& name);
/// UserError listing the known models if `name` is not one.
const MemoryModel& memory_model_or_throw(const std::string& name);

}  // namespace trainsim
