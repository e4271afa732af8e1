#pragma once
// The three SCALE-Sim-compatible systolic dataflows (ws, os, is) share one fold geometry, one
// timing model and one set of counting conventions; this header holds what they share.
// docs/systolic_dataflows.md explains the mappings with worked examples.
//
// Mapping. A GEMM C[M x N] = A[M x K] B[K x N] runs on an R x C array with one GEMM dim on
// the array rows (Sr), one on the columns (Sc) and the third streamed in time (T):
//   os: Sr = M, Sc = N, T = K   outputs stay in the PEs, A enters left, B enters top
//   ws: Sr = K, Sc = N, T = M   a K x N tile of B stays, A enters left, psums flow down
//   is: Sr = K, Sc = M, T = N   a K x M tile of A^T stays, B enters left, psums flow down
// FR = ceil(Sr / R) row folds, FC = ceil(Sc / C) column folds, F = FR * FC folds, run one
// after another in the order `for fc: for fr:` (SCALE-Sim's).
//
// Timing (SCALE-Sim v2 exactly). A fold lasts L cycles whatever part of the array it uses:
//   os: L = T + R + C - 2           (skewed injection, wavefront to the far corner)
//   ws, is: L = R + (T + R + C - 2) (R cycles shifting the stationary tile in from the top
//                                    edge, then the same wavefront)
// compute_cycles = F * L - 1. SCALE-Sim reports the index of the last cycle, not the count;
// trainsim reproduces it by treating the op's final cycle as overlapping the next op's first:
// the engine executes that cycle in the step() call that returns false.
//
// Counting conventions (both fidelities; only valid values and used PEs are counted: a PE
// outside a ragged fold's used rows / columns is clock-gated and does nothing):
//   rf.reads:  every MAC reads its two operand registers once (ifmap and filter; forwarding
//              a moving value to the neighbour uses the same read) and one psum: every psum
//              value written is read exactly once, by the next MAC that accumulates onto it
//              or by the output port that sends it out. So rf.reads = macs for all operands.
//   rf.writes: ofmap: one psum write per MAC. A moving operand: one write each time a
//              valid value is latched into a used PE. The stationary operand (ws filter, is
//              ifmap): one write per latch while it shifts down into place, so the value for
//              row i of a fold is written i + 1 times.
//   noc.reads: hops of ifmap / filter values, buffer -> edge PE or PE -> neighbour PE; equal
//              to the rf writes of that operand (every hop ends in a latch).
//   noc.writes[kOfmap]: hops of psums / outputs: ws/is one per psum handed to the PE below
//              plus one per psum leaving the fold's last used row for the buffer (= macs);
//              os one per finished output written to the buffer (= M * N).
//   buffer:    reads of each operand value injected at an array edge (equal to SCALE-Sim's
//              SRAM reads); ofmap writes: ws/is every row fold writes its partial sums
//              (FR * M * N), os the M * N outputs once (SCALE-Sim adds an artifact F * (R + C),
//              reported only by scalesim_view()). ws/is ofmap reads: a later row fold reads
//              the previous partial sum back to accumulate (read-modify-write at the buffer
//              port), (FR - 1) * M * N, which SCALE-Sim does not count.
//   acc:       with an output accumulator (accelerator.accumulator) that holds a fold's
//              outputs (ws, is: T x the fold's columns; os: its rows x columns), every psum
//              or output leaving the array goes to it instead (writes FR * M * N for ws / is,
//              M * N for os), each is read once (by the next row fold's read-modify-write or
//              by the drain), and the buffer takes the M * N finished outputs once and reads
//              no psums. SCALE-Sim has no accumulator; scalesim_view() is unchanged.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "dataflows/dataflow.h"

namespace trainsim {

enum class Systolic { kOs, kWs, kIs };

/// How a GEMM folds onto the array for one systolic dataflow.
struct SystolicMapping {
  Systolic kind = Systolic::kOs;
  GemmShape gemm;
  std::int64_t rows = 1, cols = 1;  ///< R, C of the array
  std::int64_t sr = 0, sc = 0, t = 0;
  std::int64_t row_folds = 0, col_folds = 0;
  std::int64_t load_cycles = 0;  ///< R for ws / is (stationary tile shifted in), 0 for os
  std::int64_t fold_cycles = 0;  ///< L
  /// The folds' partial sums go to the output accumulator rather than the buffer: there is
  /// one, and it holds a fold's outputs (dataflows/accumulator.h).
  bool psums_in_accumulator = false;

  std::int64_t folds() const { return row_folds * col_folds; }
  /// Rows / columns of the array that fold fr / fc uses (the last fold may be ragged).
  std::int64_t rows_used(std::int64_t fr) const { return std::min(rows, sr - fr * rows); }
  std::int64_t cols_used(std::int64_t fc) const { return std::min(cols, sc - fc * cols); }
  /// Sum over row folds of r (r + 1) / 2: latches per column of a tile shifted in from the
  /// top edge (the value for row i hops i + 1 times).
  std::int64_t shift_in_latches_per_col() const;
  /// Outputs the largest fold produces: T x its columns (ws, is), rows x columns (os).
  std::int64_t fold_output_words() const;
  /// F * L - 1 (SCALE-Sim), 0 for an empty GEMM.
  std::int64_t compute_cycles() const;
  std::vector<std::pair<std::string, std::int64_t>> summary() const;
};

/// Throws std::invalid_argument for element-wise ops (they never reach the PE array) and
/// UserError for an array without PEs.
SystolicMapping map_systolic(Systolic kind, const Op& op, const AcceleratorSpec& acc);
/// The same for the GEMM an op lowers to (lower_to_gemm).
SystolicMapping map_systolic(Systolic kind, const GemmShape& gemm, const AcceleratorSpec& acc);

/// What the three dataflows share: everything but the per-dataflow closed-form counts,
/// SCALE-Sim figures and engine set-up, which each dataflow's file provides.
class SystolicDataflow : public Dataflow {
 public:
  explicit SystolicDataflow(Systolic kind) : kind_(kind) {}
  bool gemm_based() const override { return true; }
  OpStats evaluate(const Op& op, const AcceleratorSpec& acc) const override;
  std::int64_t compute_cycles(const Op& op, const AcceleratorSpec& acc) const override;
  /// From the tile's GEMM (tile_gemm), without building its op: the buffer-mapping search
  /// asks for hundreds of thousands of tiles.
  std::int64_t tile_compute_cycles(const NestProblem& p, const TileBox& box,
                                   const AcceleratorSpec& acc) const override;
  bool scalesim_view(const Op& op, const AcceleratorSpec& acc, ScaleSimView& out) const override;
  std::unique_ptr<ArrayEngine> engine(const Op& op, const AcceleratorSpec& acc,
                                      OperandValues values) const override;
  std::array<std::int64_t, kNumDims> tile_granules(const NestProblem& p,
                                                   const AcceleratorSpec& acc) const override;
  double compute_floor_factor(const NestProblem& p, const AcceleratorSpec& acc, TileBlock block,
                              const std::vector<BlockTile>* tiles) const override;

 protected:
  /// Adds the dataflow's rf / noc / buffer counts to `st` (macs, cycles, pes and mapping are
  /// already filled).
  virtual void add_counts(const SystolicMapping& m, OpStats& st) const = 0;
  virtual ScaleSimView scalesim(const SystolicMapping& m) const = 0;
  virtual std::unique_ptr<ArrayEngine> make_engine(const SystolicMapping& m,
                                                   OperandValues values) const = 0;

 private:
  Systolic kind_;
};

}  // namespace trainsim
