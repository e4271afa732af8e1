// Register-level model of the os array. Per PE: the A pipeline register (moving right), the
// B pipeline register (moving down), each carrying one K step (its value and step follow
// from the clock: see the constructor), and the accumulator that holds the PE's output for
// the whole fold. Only the
// fold's used rows and columns are ever touched: padding PEs are clock-gated.
#include <algorithm>
#include <utility>

#include "dataflows/systolic_engine.h"
#include "dataflows/vector_rows.h"

namespace trainsim {
namespace {

class OutputStationaryEngine final : public SystolicEngine {
 public:
  OutputStationaryEngine(const SystolicMapping& m, OperandValues v)
      : SystolicEngine(m), A_(std::move(v.a)), B_(std::move(v.b)) {
    const std::size_t n = static_cast<std::size_t>(m.rows * m.cols);
    acc_.assign(n, 0.0);
    const std::int64_t K = m.t, N = m.gemm.n, M = m.gemm.m;
    // The step a PE's registers carry follows from the clock: both operands in PE (i, j) at
    // cycle tau belong to K step s = tau - i - j (a bubble, 0, outside [0, K)). Rows of A
    // are kept reversed and zero-padded, so row i's registers are K - 1 - s, contiguous in
    // j; B is kept by anti-diagonal, u = s + column, so that row i's registers are
    // columns c0 .. c0 + c - 1 of anti-diagonal tau - i + c0.
    pad_ = std::max<std::int64_t>(0, m.fold_cycles - K) + 1;
    a_stride_ = pad_ + K + m.rows + m.cols;
    a_rev_.assign(static_cast<std::size_t>(M * a_stride_), 0.0);
    for (std::int64_t r = 0; r < M; ++r)
      for (std::int64_t k = 0; k < K; ++k)
        a_rev_[static_cast<std::size_t>(r * a_stride_ + pad_ + K - 1 - k)] = A_[r * K + k];
    diag_offset_ = m.rows;  // tau - i >= -(rows - 1)
    const std::int64_t diagonals = diag_offset_ + m.fold_cycles + N + 1;
    b_diag_.assign(static_cast<std::size_t>(diagonals * N), 0.0);
    for (std::int64_t k = 0; k < K; ++k)
      for (std::int64_t g = 0; g < N; ++g)
        b_diag_[static_cast<std::size_t>((diag_offset_ + k + g) * N + g)] = B_[k * N + g];
  }

 private:
  void begin_fold() override { std::fill(acc_.begin(), acc_.end(), 0.0); }

  // Row i injects A[r0 + i][tau - i] on the left, column j injects B[tau - j][c0 + j] at the
  // top: the skews make both operands of step k meet in PE (i, j) at cycle k + i + j.
  void tick(std::int64_t tau) override {
    const std::int64_t C = m_.cols, c = c_, K = m_.t, N = m_.gemm.n;
    // What enters this clock: rows i and columns j whose step tau - i (tau - j) is in [0, K).
    auto in_range = [&](std::int64_t n) {
      return std::max<std::int64_t>(
          0, std::min<std::int64_t>(n - 1, tau) - std::max<std::int64_t>(0, tau - K + 1) + 1);
    };
    st_.buffer.reads[kIfmap] += in_range(r_);
    st_.buffer.reads[kFilter] += in_range(c);
    // Bubbles carry 0, so the MAC runs branch-free over the used PEs; a fold as wide as a
    // common array runs rows of that fixed width (vector_rows.h).
    with_row_width(c, [&](auto width) { mac_rows<decltype(width)::value>(tau); });
    // PEs of row i holding a step: j in [tau - i - K + 1, tau - i] within [0, c); once the
    // skew has filled the array and until the last step enters it, all of them.
    std::int64_t latched = 0;
    if (tau >= r_ + c - 2 && tau <= K - 1) {
      latched = r_ * c;
    } else {
      for (std::int64_t i = 0; i < r_; ++i) {
        const std::int64_t lo = std::max<std::int64_t>(0, tau - i - K + 1),
                           hi = std::min<std::int64_t>(c - 1, tau - i);
        if (hi >= lo) latched += hi - lo + 1;
      }
    }
    // The PEs at step 0 start their accumulators: row i's is column tau - i, if in [0, c).
    const std::int64_t first = std::max<std::int64_t>(
        0, std::min<std::int64_t>(r_ - 1, tau) - std::max<std::int64_t>(0, tau - c + 1) + 1);
    const std::int64_t macs = latched;  // both operands of a PE carry the same step
    // PEs that just did step K - 1 lie on one anti-diagonal; each sends its output over its
    // column's port to the buffer (one per column per cycle).
    std::int64_t outputs = 0;
    const std::int64_t d = tau - (K - 1);
    if (d >= 0) {
      for (std::int64_t i = std::max<std::int64_t>(0, d - c + 1); i <= std::min(r_ - 1, d); ++i) {
        out_[(r0_ + i) * N + c0_ + d - i] = acc_[i * C + (d - i)];
        ++outputs;
      }
    }
    st_.macs += macs;
    st_.rf.reads[kIfmap] += macs;
    st_.rf.reads[kFilter] += macs;
    st_.rf.writes[kIfmap] += latched;
    st_.rf.writes[kFilter] += latched;
    st_.noc.reads[kIfmap] += latched;
    st_.noc.reads[kFilter] += latched;
    st_.rf.writes[kOfmap] += macs;
    // Each accumulator value is read once: by the next MAC (the first one starts from zero)
    // or by the output port.
    st_.rf.reads[kOfmap] += (macs - first) + outputs;
    st_.noc.writes[kOfmap] += outputs;
    st_.buffer.writes[kOfmap] += outputs;
    if (psums_in_acc_) {  // through the accumulator on the way: written, then drained
      st_.acc.writes[kOfmap] += outputs;
      st_.acc.reads[kOfmap] += outputs;
    }
    active_ = static_cast<int>(macs);
  }

  // The MACs of a clock; `Width` the used columns (a multiple of 8), 0: c_ (any).
  template <int Width>
  void mac_rows(std::int64_t tau) {
    const std::int64_t C = m_.cols, K = m_.t, N = m_.gemm.n;
    for (std::int64_t i = 0; i < r_; ++i) {
      double* __restrict acc = &acc_[i * C];
      const double* __restrict a =
          &a_rev_[static_cast<std::size_t>((r0_ + i) * a_stride_ + pad_ + K - 1 - tau + i)];
      const double* __restrict b =
          &b_diag_[static_cast<std::size_t>((diag_offset_ + tau - i + c0_) * N + c0_)];
      if constexpr (Width > 0) {
        row_fma<Width>(acc, acc, a, b);
      } else {
        for (std::int64_t j = 0; j < c_; ++j) acc[j] += a[j] * b[j];
      }
    }
  }

  std::vector<double> A_, B_;
  std::vector<double> acc_, a_rev_, b_diag_;
  std::int64_t pad_ = 0, a_stride_ = 0, diag_offset_ = 0;
};

}  // namespace

std::unique_ptr<ArrayEngine> make_output_stationary_engine(const SystolicMapping& m,
                                                           OperandValues values) {
  return std::make_unique<OutputStationaryEngine>(m, std::move(values));
}

}  // namespace trainsim
