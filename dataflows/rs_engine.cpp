#include "dataflows/rs_engine.h"

#include <algorithm>
#include <stdexcept>
#include <utility>

namespace trainsim {
namespace {

// Register-level model of the RS mapping. Per physical PE: a weight RF (p q S' words), an
// input RF (q S' words, one sliding window per channel, indexed by column mod s, the width
// of the job's row chunk; S' = S unless the row is chunked), a psum RF
// (p words) and the psum link register read by the PE above. Every PE of one set row runs
// the same schedule, so the schedule counters live per set row, and the RFs are stored
// word-major (word k of every PE contiguous): a set row's MACs are one vectorisable loop.
// Rows of a set are skewed: row i starts h - 1 - i cycles after the bottom row, so a PE
// finishes psum (x, f) exactly one cycle after the PE below it, when that PE's psum sits in
// its link register: the vertical accumulation needs no extra psum storage.
class RsEngine final : public ArrayEngine {
 public:
  RsEngine(RsMapping m, OperandValues v, std::int64_t pes)
      : m_(std::move(m)), in_(std::move(v.a)), wt_(std::move(v.b)) {
    if (static_cast<std::int64_t>(in_.size()) != m_.N * m_.C * m_.H * m_.W ||
        static_cast<std::int64_t>(wt_.size()) != m_.M * m_.C * m_.R * m_.S)
      throw std::invalid_argument("rs engine: operand sizes do not match lower_to_conv(op)");
    out_.assign(m_.N * m_.M * m_.E * m_.F, 0.0);
    written_.assign(out_.size(), 0);
    st_.pes = pes;
    st_.mapping = m_.summary();
    const std::int64_t n_pes = m_.rows * m_.cols;
    n_pes_ = n_pes;
    wrf_.assign(n_pes * m_.p * m_.q * m_.chunk_cols, 0.0);
    irf_.assign(n_pes * m_.q * m_.chunk_cols, 0.0);
    prf_.assign(n_pes * m_.p, 0.0);
    link_.assign(n_pes, 0.0);
    y_of_pe_.assign(n_pes, 0);
    reader_.assign(n_pes, 0);
    slots_.reserve(n_pes);
    rows_.reserve(m_.rows * m_.cols);
    pending_.reserve(n_pes);
    setup_class();
    start_pass();
  }

  bool step() override {
    if (done_) return false;
    commit_pending();
    active_ = 0;
    for (Row& row : rows_) {
      const Slot& slot = slots_[row.slot];
      const std::int64_t tau = t_ - row.delay;
      if (tau < 0) continue;
      if (tau < slot.load) {
        load(row, slot, tau);
      } else if (tau < slot.load + slot.compute) {
        compute(row, slot);
      }
    }
    // Every MAC reads an input, a weight and a psum and writes the psum: counted once per
    // cycle rather than per set row (narrow sets have many rows of few PEs).
    st_.macs += active_;
    for (int o = 0; o < kNumOperands; ++o) st_.rf.reads[o] += active_;
    st_.rf.writes[kOfmap] += active_;
    ++t_;
    ++st_.compute_cycles;
    if (t_ == pass_len_) next_pass();
    return true;
  }

  const OpStats& stats() const override { return st_; }
  const std::vector<double>& result() const override { return out_; }
  int active_pes() const override { return active_; }
  std::int64_t fold() const override { return pass_; }

 private:
  struct Slot {  // one job placed on the array for this pass
    RsJob job;
    std::int64_t load = 0, compute = 0;  // cycles of weight preload and of MACs
  };
  struct Row {  // one PE row of one set
    int slot = 0;
    std::int64_t pe0 = 0;    // physical index of its leftmost PE
    std::int64_t i = 0;      // row within the set, 0 = top
    std::int64_t delay = 0;  // skew: h - 1 - i
    std::int64_t x = 0, c = 0, s = 0, f = 0;
    std::int64_t base = 0;  // (x U) mod s: input RF slot of tap 0
  };

  const RsClass& cls() const { return m_.classes[cls_]; }

  // Zero padding is applied at the buffer edge: padded positions read as 0.
  double input_at(std::int64_t n, std::int64_t ch, std::int64_t y, std::int64_t col) const {
    const std::int64_t yr = y - m_.P, cr = col - m_.P;
    if (yr < 0 || yr >= m_.H || cr < 0 || cr >= m_.W) return 0.0;
    return in_[((n * m_.C + ch) * m_.H + yr) * m_.W + cr];
  }
  bool real_col(std::int64_t col) const { return col >= m_.P && col < m_.P + m_.W; }

  // Input row of every PE of the class's grid, and which PE triggers the single buffer read
  // of a multicast row (the bottom-most PE of its diagonal, the first to need it).
  void setup_class() {
    const RsClass& k = cls();
    for (std::int64_t z = 0; z < k.rep(); ++z) {
      for (std::int64_t i = 0; i < k.h; ++i) {
        for (std::int64_t j = 0; j < k.w; ++j) {
          const std::int64_t pe = ((z / k.vc) * k.h + i) * m_.cols + (z % k.vc) * k.w + j;
          const std::int64_t y = (k.e0 + j) * m_.U + k.r0 + i;
          bool first = y >= m_.P && y < m_.P + m_.H;
          for (std::int64_t i2 = i + 1; i2 < k.h && first; ++i2) {
            const std::int64_t d = y - k.r0 - i2;
            if (d >= 0 && d % m_.U == 0 && d / m_.U >= k.e0 && d / m_.U < k.e0 + k.w) first = false;
          }
          y_of_pe_[pe] = y;
          reader_[pe] = first;
        }
      }
    }
  }

  void start_pass() {
    const RsClass& k = cls();
    slots_.clear();
    rows_.clear();
    const std::int64_t first = pass_in_cls_ * k.rep();
    const std::int64_t last = std::min(first + k.rep(), m_.jobs_per_class);
    pass_len_ = 0;
    for (std::int64_t idx = first; idx < last; ++idx) {
      const std::int64_t z = idx - first;
      Slot slot;
      slot.job = m_.job(idx);
      slot.load = slot.job.p * slot.job.q * slot.job.s;
      slot.compute = m_.F * slot.load;
      pass_len_ = std::max(pass_len_, slot.load + slot.compute + k.h);
      slots_.push_back(slot);
      for (std::int64_t i = 0; i < k.h; ++i) {
        Row row;
        row.slot = static_cast<int>(z);
        row.pe0 = ((z / k.vc) * k.h + i) * m_.cols + (z % k.vc) * k.w;
        row.i = i;
        row.delay = k.h - 1 - i;
        rows_.push_back(row);
      }
    }
    t_ = 0;
  }

  void next_pass() {
    ++pass_;
    if (++pass_in_cls_ == m_.passes(cls())) {
      pass_in_cls_ = 0;
      if (++cls_ == m_.classes.size()) {
        done_ = true;
        rows_.clear();
        return;
      }
      setup_class();
    }
    start_pass();
  }

  // Weight word tau of the job's row chunk arrives (multicast along the set row); the first
  // q s cycles also bring the first input window, each PE its own row.
  void load(const Row& row, const Slot& slot, std::int64_t tau) {
    const RsJob& jb = slot.job;
    const std::int64_t w = cls().w, S = jb.s, r = cls().r0 + row.i;
    const std::int64_t f = tau / (jb.q * S), c = (tau / S) % jb.q, s = tau % S;
    const double value =
        wt_[(((jb.fg * m_.p + f) * m_.C + jb.cg * m_.q + c) * m_.R + r) * m_.S + jb.off + s];
    double* wrf = &wrf_[tau * n_pes_ + row.pe0];
    for (std::int64_t j = 0; j < w; ++j) wrf[j] = value;
    st_.rf.writes[kFilter] += w;
    st_.noc.reads[kFilter] += w;
    st_.buffer.reads[kFilter] += 1;
    if (tau < jb.q * S) {
      const std::int64_t ci = tau / S, col = tau % S;
      deliver_input(row, jb, ci, jb.off + col, col);
    }
  }

  // Input column `col` of channel ci enters every PE's window at `slot`.
  void deliver_input(const Row& row, const RsJob& jb, std::int64_t ci, std::int64_t col,
                     std::int64_t slot) {
    const std::int64_t w = cls().w, ch = jb.cg * m_.q + ci;
    const bool real = real_col(col);
    for (std::int64_t j = 0; j < w; ++j) {
      const std::int64_t pe = row.pe0 + j;
      irf_[(ci * m_.chunk_cols + slot) * n_pes_ + pe] = input_at(jb.n, ch, y_of_pe_[pe], col);
      if (real && reader_[pe]) ++st_.buffer.reads[kIfmap];
    }
    st_.rf.writes[kIfmap] += w;
    st_.noc.reads[kIfmap] += w;
  }

  // Column x of a chunk needs padded columns [x U + off, x U + off + s); the last
  // min(U, s) of them are new.
  void slide_window(const Row& row, const Slot& slot) {
    const RsJob& jb = slot.job;
    const std::int64_t end = row.x * m_.U + jb.off + jb.s;
    for (std::int64_t ci = 0; ci < jb.q; ++ci)
      for (std::int64_t col = end - m_.slide(jb.s); col < end; ++col)
        deliver_input(row, jb, ci, col, (col - jb.off) % jb.s);
  }

  void compute(Row& row, const Slot& slot) {
    const RsJob& jb = slot.job;
    const std::int64_t w = cls().w, S = jb.s;
    if (row.x > 0 && row.c == 0 && row.s == 0 && row.f == 0) slide_window(row, slot);
    std::int64_t in_slot = row.base + row.s;
    if (in_slot >= S) in_slot -= S;
    const std::int64_t wi = (row.f * jb.q + row.c) * S + row.s,
                       ii = row.c * m_.chunk_cols + in_slot;
    double* __restrict psum = &prf_[row.f * n_pes_ + row.pe0];
    const double* __restrict wrf = &wrf_[wi * n_pes_ + row.pe0];
    const double* __restrict irf = &irf_[ii * n_pes_ + row.pe0];
    for (std::int64_t j = 0; j < w; ++j) psum[j] += wrf[j] * irf[j];
    active_ += static_cast<int>(w);
    if (row.c == jb.q - 1 && row.s == S - 1) finish_psum(row, jb);
    if (++row.f == jb.p) {
      row.f = 0;
      if (++row.s == S) {
        row.s = 0;
        if (++row.c == jb.q) {
          row.c = 0;
          ++row.x;
          row.base = (row.base + m_.U) % S;
        }
      }
    }
  }

  // The psum of (x, f) is complete: add the one the PE below sent last cycle and pass it
  // on (up the column, or from the top row towards the buffer).
  void finish_psum(const Row& row, const RsJob& jb) {
    const RsClass& k = cls();
    const bool has_below = row.i < k.h - 1;
    for (std::int64_t j = 0; j < k.w; ++j) {
      const std::int64_t pe = row.pe0 + j;
      double& psum = prf_[row.f * n_pes_ + pe];
      const double v = psum + (has_below ? link_[pe + m_.cols] : 0.0);
      psum = 0.0;
      link_[pe] = v;
      if (row.i == 0) {
        const std::int64_t o =
            ((jb.n * m_.M + jb.fg * m_.p + row.f) * m_.E + k.e0 + j) * m_.F + row.x;
        pending_.emplace_back(o, v);
      }
    }
    st_.rf.reads[kOfmap] += k.w;
    if (has_below) st_.rf.writes[kOfmap] += k.w;
    st_.noc.writes[kOfmap] += k.w;
  }

  // The buffer latches last cycle's top-row psums; a second write to an output is a
  // read-modify-write (accumulation across channel groups, filter-row segments and row
  // chunks).
  void commit_pending() {
    for (const auto& [o, v] : pending_) {
      if (written_[o]) ++st_.buffer.reads[kOfmap];
      written_[o] = 1;
      out_[o] += v;
      ++st_.buffer.writes[kOfmap];
    }
    pending_.clear();
  }

  RsMapping m_;
  std::vector<double> in_, wt_, out_;
  std::vector<std::uint8_t> written_;
  OpStats st_;
  std::int64_t n_pes_ = 0;
  std::vector<double> wrf_, irf_, prf_, link_;
  std::vector<std::int64_t> y_of_pe_;
  std::vector<std::uint8_t> reader_;
  std::vector<Slot> slots_;
  std::vector<Row> rows_;
  std::vector<std::pair<std::int64_t, double>> pending_;
  std::size_t cls_ = 0;
  std::int64_t pass_in_cls_ = 0, pass_ = 0, t_ = 0, pass_len_ = 0;
  bool done_ = false;
  int active_ = 0;
};

}  // namespace

std::unique_ptr<ArrayEngine> make_rs_engine(RsMapping mapping, OperandValues values,
                                            std::int64_t pes) {
  return std::make_unique<RsEngine>(std::move(mapping), std::move(values), pes);
}

}  // namespace trainsim
