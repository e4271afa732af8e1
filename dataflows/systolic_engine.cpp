#include "dataflows/systolic_engine.h"

#include <algorithm>

namespace trainsim {

SystolicEngine::SystolicEngine(const SystolicMapping& m)
    : m_(m), psums_in_acc_(m.psums_in_accumulator) {
  out_.assign(static_cast<std::size_t>(m.gemm.m * m.gemm.n), 0.0);
  st_.pes = m.rows * m.cols;
  st_.mapping = m.summary();
  ticks_left_ = m.folds() * m.fold_cycles;
  done_ = ticks_left_ == 0;
}

bool SystolicEngine::step() {
  if (done_) return false;
  if (tau_ == 0) {
    fold_ = next_fold_++;
    // Folds run `for fc: for fr:`, so consecutive folds share the column block.
    fr_ = fold_ % m_.row_folds;
    fc_ = fold_ / m_.row_folds;
    r_ = m_.rows_used(fr_);
    c_ = m_.cols_used(fc_);
    r0_ = fr_ * m_.rows;
    c0_ = fc_ * m_.cols;
    begin_fold();
  }
  tick(tau_);
  if (++tau_ == m_.fold_cycles) tau_ = 0;
  // SCALE-Sim reports the index of the last cycle (F * L - 1), not the count: the op's final
  // cycle is executed here but not counted, as if it overlapped the next op's first cycle.
  if (--ticks_left_ == 0) {
    done_ = true;
    return false;
  }
  ++st_.compute_cycles;
  return true;
}

std::vector<double> transposed(const std::vector<double>& a, std::int64_t rows, std::int64_t cols) {
  constexpr std::int64_t kBlock = 32;  // 32 x 32 doubles: 8 KiB a side, well within L1
  std::vector<double> t(a.size());
  for (std::int64_t i0 = 0; i0 < rows; i0 += kBlock)
    for (std::int64_t k0 = 0; k0 < cols; k0 += kBlock) {
      const std::int64_t i1 = std::min(rows, i0 + kBlock), k1 = std::min(cols, k0 + kBlock);
      for (std::int64_t i = i0; i < i1; ++i)
        for (std::int64_t k = k0; k < k1; ++k) t[k * rows + i] = a[i * cols + k];
    }
  return t;
}

}  // namespace trainsim
