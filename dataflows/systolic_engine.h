#pragma once
// Cycle-level engines of the systolic dataflows. SystolicEngine owns what every fold-by-fold
// schedule shares (fold order, SCALE-Sim's per-fold length, the "-1" of the last cycle, the
// counters and the result); the two register-level arrays derive from it:
//   tile-stream (ws, is): a stationary tile shifted in from the top edge, a moving operand
//                         entering on the left, psums flowing down and out of the bottom;
//   output-stationary (os): A entering left, B entering top, outputs accumulating in place.
#include <cstdint>
#include <memory>
#include <vector>

#include "dataflows/systolic.h"

namespace trainsim {

class SystolicEngine : public ArrayEngine {
 public:
  bool step() final;
  const OpStats& stats() const final { return st_; }
  const std::vector<double>& result() const final { return out_; }
  int active_pes() const final { return active_; }
  std::int64_t fold() const final { return fold_; }

 protected:
  explicit SystolicEngine(const SystolicMapping& m);
  /// Called before the first cycle of every fold, with fr_, fc_, r_, c_, r0_, c0_ set.
  virtual void begin_fold() = 0;
  /// One clock of the current fold; `tau` counts from 0 at the fold's first cycle.
  virtual void tick(std::int64_t tau) = 0;

  SystolicMapping m_;
  const bool psums_in_acc_;  ///< the output port writes to the accumulator (systolic.h)
  OpStats st_;
  std::vector<double> out_;  ///< C[M x N], row-major: what the buffer holds
  int active_ = 0;
  // The current fold: its row / column fold indices, the rows and columns it uses and where
  // they start in the mapped dims.
  std::int64_t fr_ = 0, fc_ = 0, r_ = 0, c_ = 0, r0_ = 0, c0_ = 0;

 private:
  std::int64_t fold_ = 0, next_fold_ = 0, tau_ = 0, ticks_left_ = 0;
  bool done_ = false;
};

/// ws / is: `stat` is the stationary operand laid out Sr x Sc, `mov` the moving one Sr x T
/// (row i of a fold injects mov[r0 + i][s] at stream step s); the psum leaving column j for
/// stream step s is C[s * out_stride_t + (c0 + j) * out_stride_c].
struct TileStreamInput {
  std::vector<double> stat, mov;
  Operand stat_operand = kFilter, mov_operand = kIfmap;
  std::int64_t out_stride_t = 0, out_stride_c = 0;
};
std::unique_ptr<ArrayEngine> make_tile_stream_engine(const SystolicMapping& m, TileStreamInput in);

/// The transpose of the rows x cols matrix `a` (row-major), as ws and is lay out A for the
/// engine; in blocks, so that neither side is walked a whole row apart per element.
std::vector<double> transposed(const std::vector<double>& a, std::int64_t rows, std::int64_t cols);

/// os: A [M x K] and B [K x N] as given.
std::unique_ptr<ArrayEngine> make_output_stationary_engine(const SystolicMapping& m,
                                                           OperandValues values);

}  // namespace trainsim
