// Register-level model of the ws / is array. Per PE: the stationary register and its valid
// bit, the moving operand's pipeline register (its value and the stream step it belongs to
// follow from the clock: see stream()) and the psum register read by the PE below. Only the
// fold's used rows and columns are ever touched: padding PEs are clock-gated.
#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <utility>

#include "dataflows/systolic_engine.h"
#include "dataflows/vector_rows.h"

namespace trainsim {
namespace {

class TileStreamEngine final : public SystolicEngine {
 public:
  TileStreamEngine(const SystolicMapping& m, TileStreamInput in)
      : SystolicEngine(m), in_(std::move(in)) {
    const std::size_t n = static_cast<std::size_t>(m.rows * m.cols);
    w_.assign(n, 0.0);
    ps_.assign(n, 0.0);
    wv_.assign(n, 0);
    valid_prefix_.assign(static_cast<std::size_t>(m.rows * (m.cols + 1)), 0);
    // Row rho of the moving operand reversed, with zeros (bubbles) before and after: PE
    // (i, j) at stream step tau reads index pad_ + T - 1 - (tau - i - j) of row r0 + i.
    // Steps run to fold_cycles - load_cycles - 1, so tau - i - j stays within
    // [-(rows + cols), T + pad_ - 1].
    pad_ = std::max<std::int64_t>(0, m.fold_cycles - m.load_cycles - m.t) + 1;
    stride_ = pad_ + m.t + m.rows + m.cols;
    rev_.assign(static_cast<std::size_t>(m.sr * stride_), 0.0);
    for (std::int64_t rho = 0; rho < m.sr; ++rho)
      for (std::int64_t s = 0; s < m.t; ++s)
        rev_[static_cast<std::size_t>(rho * stride_ + pad_ + m.t - 1 - s)] = in_.mov[rho * m.t + s];
  }

 private:
  void begin_fold() override {
    std::fill(w_.begin(), w_.end(), 0.0);
    std::fill(ps_.begin(), ps_.end(), 0.0);
    std::fill(wv_.begin(), wv_.end(), 0);
  }

  // The moving operand's registers of row i at stream step tau, columns 0 .. c - 1.
  const double* moving_at(std::int64_t i, std::int64_t tau) const {
    return &rev_[static_cast<std::size_t>((r0_ + i) * stride_ + pad_ + m_.t - 1 - tau + i)];
  }

  void tick(std::int64_t tau) override {
    if (tau < m_.load_cycles)
      load(tau);
    else
      stream(tau - m_.load_cycles);
  }

  // The MACs of a clock, bottom row first; `Width` the used columns (a multiple of 8, see
  // vector_rows.h), 0: c_ (any).
  template <int Width>
  void mac_rows(std::int64_t tau) {
    const std::int64_t C = m_.cols;
    if constexpr (Width > 0) {
      for (std::int64_t i = r_ - 1; i > 0; --i)
        row_fma<Width>(&ps_[i * C], &ps_[(i - 1) * C], moving_at(i, tau), &w_[i * C]);
      row_mul<Width>(ps_.data(), moving_at(0, tau), w_.data());
    } else {
      const std::int64_t c = c_;
      for (std::int64_t i = r_ - 1; i > 0; --i) {
        double* __restrict ps = &ps_[i * C];
        const double* __restrict a = moving_at(i, tau);
        const double* __restrict w = &w_[i * C];
        const double* __restrict up = &ps_[(i - 1) * C];
        for (std::int64_t j = 0; j < c; ++j) ps[j] = up[j] + a[j] * w[j];
      }
      const double* __restrict a = moving_at(0, tau);
      for (std::int64_t j = 0; j < c; ++j) ps_[j] = a[j] * w_[j];
    }
  }

  // The stationary tile shifts down one row per cycle from the top edge; the value for row
  // i enters at cycle R - 1 - i, so after R cycles every row holds its own.
  void load(std::int64_t cycle) {
    const std::int64_t C = m_.cols, c = c_;
    for (std::int64_t i = r_ - 1; i > 0; --i) {
      std::memcpy(&w_[i * C], &w_[(i - 1) * C], sizeof(double) * c);
      std::memcpy(&wv_[i * C], &wv_[(i - 1) * C], sizeof(std::int32_t) * c);
    }
    const std::int64_t target = m_.rows - 1 - cycle;
    if (target < r_) {
      const double* src = &in_.stat[(r0_ + target) * m_.sc + c0_];
      for (std::int64_t j = 0; j < c; ++j) w_[j] = src[j], wv_[j] = 1;
      st_.buffer.reads[in_.stat_operand] += c;
    } else {
      for (std::int64_t j = 0; j < c; ++j) w_[j] = 0.0, wv_[j] = 0;
    }
    std::int64_t latched = 0;
    for (std::int64_t i = 0; i < r_; ++i) {
      const std::int32_t* v = &wv_[i * C];
      for (std::int64_t j = 0; j < c; ++j) latched += v[j];
    }
    st_.rf.writes[in_.stat_operand] += latched;
    st_.noc.reads[in_.stat_operand] += latched;
    active_ = 0;
  }

  // One wavefront step: the moving operand shifts right (row i injects stream step tau - i
  // at the left edge: the skew), then every PE adds its product to the psum of the PE above.
  // The moving operand's registers are not copied along the row each clock: PE (i, j) holds
  // what row i injected j steps ago, stream step s = tau - i - j (a bubble outside [0, T)),
  // which is read where it lies in the row's reversed, zero-padded copy of the operand.
  void stream(std::int64_t tau) {
    const std::int64_t C = m_.cols, c = c_, T = m_.t;
    // Rows injecting a stream step this clock: i in [tau - T + 1, tau] within [0, r).
    const std::int64_t first = std::max<std::int64_t>(0, tau - T + 1),
                       injecting = std::min<std::int64_t>(r_ - 1, tau) - first + 1;
    if (injecting > 0) st_.buffer.reads[in_.mov_operand] += injecting;
    // Bottom-up, so each row still sees the psum the row above produced last cycle. A fold
    // as wide as a common array runs rows of that fixed width.
    with_row_width(c, [&](auto width) { mac_rows<decltype(width)::value>(tau); });
    // The stationary registers hold still while the operand streams: their valid bits are
    // counted once per fold, as prefix sums along each row.
    if (tau == 0) {
      valid_all_ = 0;
      for (std::int64_t i = 0; i < r_; ++i) {
        std::int64_t* prefix = &valid_prefix_[i * (C + 1)];
        prefix[0] = 0;
        for (std::int64_t j = 0; j < c; ++j) prefix[j + 1] = prefix[j] + wv_[i * C + j];
        valid_all_ += prefix[c];
      }
      valid_row0_ = r_ > 0 ? valid_prefix_[c] : 0;
    }
    std::int64_t latched = 0, macs = 0, macs_row0 = 0;
    // Once the skew has filled the array and until the stream's tail enters it, every used PE
    // holds a stream step: the counts are the fold's totals (most clocks of a long stream).
    if (tau >= r_ + c - 2 && tau <= T - 1) {
      latched = r_ * c;
      macs = valid_all_;
      macs_row0 = valid_row0_;
    } else {
      count_partial(tau, latched, macs, macs_row0);
    }
    write_outputs(tau, macs, macs_row0, latched);
  }

  // The counts of a clock while the skew fills or drains the array: row i's PEs holding a
  // stream step are j in [tau - i - T + 1, tau - i] within [0, c).
  void count_partial(std::int64_t tau, std::int64_t& latched, std::int64_t& macs,
                     std::int64_t& macs_row0) const {
    const std::int64_t C = m_.cols, c = c_, T = m_.t;
    for (std::int64_t i = 0; i < r_; ++i) {
      // The PEs of row i holding a stream step: j in [tau - i - T + 1, tau - i] within [0, c).
      const std::int64_t lo = std::max<std::int64_t>(0, tau - i - T + 1),
                         hi = std::min<std::int64_t>(c - 1, tau - i);
      if (hi < lo) continue;
      const std::int64_t* prefix = &valid_prefix_[i * (C + 1)];
      const std::int64_t k = prefix[hi + 1] - prefix[lo];
      latched += hi - lo + 1;
      macs += k;
      if (i == 0) macs_row0 = k;
    }
  }

  void write_outputs(std::int64_t tau, std::int64_t macs, std::int64_t macs_row0,
                     std::int64_t latched) {
    const std::int64_t C = m_.cols, c = c_, T = m_.t;
    // The last used row hands its psums to the buffer port, or to the accumulator when it
    // holds the fold's outputs; a later row fold adds them to the partial sums the earlier
    // ones left there (read-modify-write), and the accumulator drains the last row fold's
    // sums, the finished outputs, to the buffer.
    std::int64_t outputs = 0;
    const std::int64_t last = r_ - 1;
    const double* ps = &ps_[last * C];
    const std::int64_t lo = std::max<std::int64_t>(0, tau - last - T + 1),
                       hi = std::min<std::int64_t>(c - 1, tau - last);
    if (hi >= lo) {
      outputs = hi - lo + 1;
      // Column j's output belongs to stream step tau - last - j: walking j up walks the
      // output back by one stream step and on by one column.
      const std::int64_t step = in_.out_stride_c - in_.out_stride_t;
      double* out = &out_[static_cast<std::size_t>((tau - last - lo) * in_.out_stride_t +
                                                   (c0_ + lo) * in_.out_stride_c)];
      if (fr_ > 0) {
        for (std::int64_t j = lo; j <= hi; ++j, out += step) *out += ps[j];
      } else {
        for (std::int64_t j = lo; j <= hi; ++j, out += step) *out = ps[j];
      }
    }
    AccessCounts& port = psums_in_acc_ ? st_.acc : st_.buffer;
    port.writes[kOfmap] += outputs;
    if (fr_ > 0) port.reads[kOfmap] += outputs;
    if (psums_in_acc_ && fr_ == m_.row_folds - 1) {
      st_.acc.reads[kOfmap] += outputs;
      st_.buffer.writes[kOfmap] += outputs;
    }
    st_.macs += macs;
    st_.rf.reads[in_.stat_operand] += macs;
    st_.rf.reads[in_.mov_operand] += macs;
    st_.rf.writes[in_.mov_operand] += latched;
    st_.noc.reads[in_.mov_operand] += latched;
    st_.rf.writes[kOfmap] += macs;
    // Each psum is read once: by the PE below (rows >= 1 read the row above's) or by the
    // output port; each such hand-over is one hop.
    st_.rf.reads[kOfmap] += (macs - macs_row0) + outputs;
    st_.noc.writes[kOfmap] += (macs - macs_row0) + outputs;
    active_ = static_cast<int>(macs);
  }

  TileStreamInput in_;
  std::vector<double> w_, ps_, rev_;
  std::vector<std::int32_t> wv_;
  std::vector<std::int64_t> valid_prefix_;  // per row: valid stationary registers in [0, j)
  std::int64_t pad_ = 0, stride_ = 0;
  std::int64_t valid_all_ = 0, valid_row0_ = 0;  // the fold's valid stationary registers
};

}  // namespace

std::unique_ptr<ArrayEngine> make_tile_stream_engine(const SystolicMapping& m, TileStreamInput in) {
  if (static_cast<std::int64_t>(in.stat.size()) != m.sr * m.sc ||
      static_cast<std::int64_t>(in.mov.size()) != m.sr * m.t)
    throw std::invalid_argument("systolic engine: operand layout does not match the mapping");
  return std::make_unique<TileStreamEngine>(m, std::move(in));
}

}  // namespace trainsim
