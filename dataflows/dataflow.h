#pragma once
// One interface per dataflow (WS, OS, IS, RS). A dataflow maps an op onto the PE array and
// answers, in two fidelities that must agree exactly:
//   fast:  evaluate()  closed form of the mapping (cycles, accesses per level per operand)
//   cycle: engine()    a register-level model that moves real operand values through the
//                      PE registers one clock at a time and produces the numeric result.
// Both fill OpStats' array-side fields: macs, compute_cycles, pes, mapping, rf, noc,
// buffer. DRAM traffic and stalls are added afterwards by the memory model
// (sim/accel/memory_model.h), identically for both fidelities.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "mapping/problem.h"
#include "sim/spec/accel_spec.h"
#include "sim/spec/op_stats.h"
#include "sim/workload/op.h"

namespace trainsim {

/// Real operand values for the cycle model, row-major.
///  GEMM mappings (ws, os, is): a = ifmap  A[M x K], b = filter B[K x N]; result C[M x N].
///  Conv mappings (rs):         a = input  [batch x channels x height x width] (unpadded),
///                              b = weights [filters x channels x kernel_h x kernel_w];
///                              result [batch x filters x out_h x out_w].
/// Shapes are those of lower_to_gemm(op) / lower_to_conv(op).
struct OperandValues {
  std::vector<double> a, b;
};

/// The clocked state machine of one op on the array (cycle fidelity).
class ArrayEngine {
 public:
  virtual ~ArrayEngine() = default;
  /// Advances one clock cycle. Returns false, without consuming a cycle, once done.
  virtual bool step() = 0;
  /// Array-side counters so far; complete once step() has returned false.
  virtual const OpStats& stats() const = 0;
  virtual const std::vector<double>& result() const = 0;
  /// PEs that performed a useful MAC in the last cycle (traced in the waveform).
  virtual int active_pes() const = 0;
  /// Current fold / pass index (traced in the waveform).
  virtual std::int64_t fold() const = 0;
};

class Dataflow {
 public:
  virtual ~Dataflow() = default;
  virtual std::string name() const = 0;  ///< "ws", "os", "is", "rs"
  virtual std::string description() const = 0;
  /// True if the dataflow executes ops as GEMMs (lower_to_gemm), false for convolutions
  /// (lower_to_conv): selects the OperandValues layout.
  virtual bool gemm_based() const = 0;
  /// Closed-form array-side cost of a GEMM or conv op. Throws UserError if the op cannot be
  /// mapped (e.g. a register file too small for even one row of the kernel).
  virtual OpStats evaluate(const Op& op, const AcceleratorSpec& acc) const = 0;
  /// evaluate(op, acc).compute_cycles without the counts: the buffer-mapping search asks it
  /// for every tile shape of thousands of candidate mappings, so dataflows answer it cheaply.
  virtual std::int64_t compute_cycles(const Op& op, const AcceleratorSpec& acc) const {
    return evaluate(op, acc).compute_cycles;
  }
  /// compute_cycles(tile_op(p, box), acc) (dataflows/tile_values.h), which a dataflow may
  /// answer without building the tile's op.
  virtual std::int64_t tile_compute_cycles(const NestProblem& p, const TileBox& box,
                                           const AcceleratorSpec& acc) const;
  /// SCALE-Sim v2's figures for `op` (GEMM-based dataflows); false if the dataflow has no
  /// SCALE-Sim counterpart (rs).
  virtual bool scalesim_view(const Op& op, const AcceleratorSpec& acc, ScaleSimView& out) const {
    return false;
  }
  /// Tile sizes the buffer mapping (mapping/search.h) should use per dimension of `p`:
  /// multiples of these where a tile is smaller than the dimension, so that tiling keeps
  /// the dataflow's spatial mapping (a tile of the dimension spread over the array rows
  /// fills whole folds). 1 = any size.
  virtual std::array<std::int64_t, kNumDims> tile_granules(const NestProblem& p,
                                                           const AcceleratorSpec& acc) const {
    std::array<std::int64_t, kNumDims> g;
    g.fill(1);
    return g;
  }
  /// A factor of a lower bound on the array's compute cycles summed over every tile of a
  /// tiling of `p`: the bound is the product of the three blocks' factors (TileBlock), each
  /// from that block's distinct tiles alone (`tiles`) or, with nullptr, the least factor of
  /// any tiling of the block. The buffer-mapping search rules out every mapping whose floor
  /// exceeds the best time found, before it analyses them (mapping/search.h). 0 (the
  /// default, for every block): no bound known.
  virtual double compute_floor_factor(const NestProblem& p, const AcceleratorSpec& acc,
                                      TileBlock block, const std::vector<BlockTile>* tiles) const {
    return 0;
  }
  /// The cycle-level engine for `op` with real operand values.
  virtual std::unique_ptr<ArrayEngine> engine(const Op& op, const AcceleratorSpec& acc,
                                              OperandValues values) const = 0;
};

}  // namespace trainsim
