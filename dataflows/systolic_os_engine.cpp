// Register-level model of the os array. Per PE: the A pipeline register (moving right), the
// B pipeline register (moving down), each with a tag (the K step it carries, -1 for a
// bubble), and the accumulator that holds the PE's output for the whole fold. Only the
// fold's used rows and columns are ever touched: padding PEs are clock-gated.
#include <algorithm>
#include <cstring>
#include <utility>

#include "dataflows/systolic_engine.h"

namespace trainsim {
namespace {

class OutputStationaryEngine final : public SystolicEngine {
 public:
  OutputStationaryEngine(const SystolicMapping& m, OperandValues v)
      : SystolicEngine(m), A_(std::move(v.a)), B_(std::move(v.b)) {
    const std::size_t n = static_cast<std::size_t>(m.rows * m.cols);
    a_.assign(n, 0.0);
    b_.assign(n, 0.0);
    acc_.assign(n, 0.0);
    at_.assign(n, -1);
    bt_.assign(n, -1);
  }

 private:
  void begin_fold() override {
    std::fill(a_.begin(), a_.end(), 0.0);
    std::fill(b_.begin(), b_.end(), 0.0);
    std::fill(acc_.begin(), acc_.end(), 0.0);
    std::fill(at_.begin(), at_.end(), -1);
    std::fill(bt_.begin(), bt_.end(), -1);
  }

  // Row i injects A[r0 + i][tau - i] on the left, column j injects B[tau - j][c0 + j] at the
  // top: the skews make both operands of step k meet in PE (i, j) at cycle k + i + j.
  void tick(std::int64_t tau) override {
    const std::int64_t C = m_.cols, c = c_, K = m_.t, N = m_.gemm.n;
    for (std::int64_t i = 0; i < r_; ++i) {
      double* a = &a_[i * C];
      std::int32_t* at = &at_[i * C];
      std::memmove(a + 1, a, sizeof(double) * (c - 1));
      std::memmove(at + 1, at, sizeof(std::int32_t) * (c - 1));
      const std::int64_t s = tau - i;
      if (s >= 0 && s < K) {
        a[0] = A_[(r0_ + i) * K + s];
        at[0] = static_cast<std::int32_t>(s);
        ++st_.buffer.reads[kIfmap];
      } else {
        a[0] = 0.0;
        at[0] = -1;
      }
    }
    for (std::int64_t i = r_ - 1; i > 0; --i) {
      std::memcpy(&b_[i * C], &b_[(i - 1) * C], sizeof(double) * c);
      std::memcpy(&bt_[i * C], &bt_[(i - 1) * C], sizeof(std::int32_t) * c);
    }
    for (std::int64_t j = 0; j < c; ++j) {
      const std::int64_t s = tau - j;
      if (s >= 0 && s < K) {
        b_[j] = B_[s * N + c0_ + j];
        bt_[j] = static_cast<std::int32_t>(s);
        ++st_.buffer.reads[kFilter];
      } else {
        b_[j] = 0.0;
        bt_[j] = -1;
      }
    }
    // Bubbles carry 0, so the MAC runs branch-free over the used PEs.
    std::int64_t a_latched = 0, b_latched = 0, macs = 0, first = 0;
    for (std::int64_t i = 0; i < r_; ++i) {
      double* __restrict acc = &acc_[i * C];
      const double* __restrict a = &a_[i * C];
      const double* __restrict b = &b_[i * C];
      const std::int32_t* __restrict at = &at_[i * C];
      const std::int32_t* __restrict bt = &bt_[i * C];
      for (std::int64_t j = 0; j < c; ++j) acc[j] += a[j] * b[j];
      std::int32_t la = 0, lb = 0, k = 0, f = 0;  // 32-bit so the loop vectorizes
      for (std::int64_t j = 0; j < c; ++j) {
        const std::int32_t va = at[j] >= 0, vb = bt[j] >= 0;
        la += va;
        lb += vb;
        k += va & vb;
        f += (at[j] == 0) & (bt[j] == 0);
      }
      a_latched += la;
      b_latched += lb;
      macs += k;
      first += f;
    }
    // PEs that just did step K - 1 lie on one anti-diagonal; each sends its output over its
    // column's port to the buffer (one per column per cycle).
    std::int64_t outputs = 0;
    const std::int64_t d = tau - (K - 1);
    if (d >= 0) {
      for (std::int64_t i = std::max<std::int64_t>(0, d - c + 1); i <= std::min(r_ - 1, d); ++i) {
        const std::int64_t p = i * C + (d - i);
        if (at_[p] != K - 1 || bt_[p] != K - 1) continue;
        out_[(r0_ + i) * N + c0_ + d - i] = acc_[p];
        ++outputs;
      }
    }
    st_.macs += macs;
    st_.rf.reads[kIfmap] += macs;
    st_.rf.reads[kFilter] += macs;
    st_.rf.writes[kIfmap] += a_latched;
    st_.rf.writes[kFilter] += b_latched;
    st_.noc.reads[kIfmap] += a_latched;
    st_.noc.reads[kFilter] += b_latched;
    st_.rf.writes[kOfmap] += macs;
    // Each accumulator value is read once: by the next MAC (the first one starts from zero)
    // or by the output port.
    st_.rf.reads[kOfmap] += (macs - first) + outputs;
    st_.noc.writes[kOfmap] += outputs;
    st_.buffer.writes[kOfmap] += outputs;
    active_ = static_cast<int>(macs);
  }

  std::vector<double> A_, B_;
  std::vector<double> a_, b_, acc_;
  std::vector<std::int32_t> at_, bt_;
};

}  // namespace

std::unique_ptr<ArrayEngine> make_output_stationary_engine(const SystolicMapping& m,
                                                           OperandValues values) {
  return std::make_unique<OutputStationaryEngine>(m, std::move(values));
}

}  // namespace trainsim
