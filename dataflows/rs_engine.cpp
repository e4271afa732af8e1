#include "dataflows/rs_engine.h"

#include <algorithm>
#include <cstdlib>
#include <new>
#include <stdexcept>
#include <utility>

namespace trainsim {
namespace {

// 64-byte aligned storage for the RFs, so that a line (see below) starts on a cache line
// and its MAC loop runs on whole, aligned vectors.
template <class T>
struct Aligned64 {
  using value_type = T;
  Aligned64() = default;
  template <class U>
  Aligned64(const Aligned64<U>&) {}
  T* allocate(std::size_t n) {
    void* p = std::aligned_alloc(64, (n * sizeof(T) + 63) / 64 * 64);
    if (!p) throw std::bad_alloc();
    return static_cast<T*>(p);
  }
  void deallocate(T* p, std::size_t) { std::free(p); }
  template <class U>
  bool operator==(const Aligned64<U>&) const {
    return true;
  }
  template <class U>
  bool operator!=(const Aligned64<U>&) const {
    return false;
  }
};
using RfVector = std::vector<double, Aligned64<double>>;

constexpr std::int64_t kAlign = 8;  // doubles per cache line
std::int64_t round_up(std::int64_t v) {
  return (v + kAlign - 1) / kAlign * kAlign;
}

// Register-level model of the RS mapping. Per physical PE: a weight RF (p q S' words), an
// input RF (q S' words, one sliding window per channel, indexed by column mod s, the width
// of the job's row chunk; S' = S unless the row is chunked), a psum RF (p words) and the
// psum link register read by the PE above. Rows of a set are skewed: row i starts
// h - 1 - i cycles after the bottom row, so a PE finishes psum (x, f) exactly one cycle
// after the PE below it, when that PE's psum sits in its link register: the vertical
// accumulation needs no extra psum storage. With chained partial sums the skew continues
// up a column's stack of sets (the set at place z starts z h cycles after the bottom one),
// and a set's bottom row adds the top row of the set below in the same way.
//
// Layout, chosen for speed (it is bookkeeping, not hardware): the RFs are word-major (word
// k of every PE contiguous), and within a word the PEs of a pass are ordered (set row i,
// set, column j), the sets by place in their stack, then stack (without chains, in job
// order), each set row starting on a cache line. The sets of one place all start together,
// so consecutive sets whose jobs share (p, q, s) and place (a *group*) run the same
// schedule: row i of every set of a group is one *line* of PEs, contiguous in every RF,
// whose schedule (the row's counters) is kept once, and whose MACs are one vectorisable
// loop per cycle; each PE still does its own MAC on its own RF words. Inputs are read from
// a zero-padded, column-major copy of the input (padding is inserted at the buffer edge),
// so that the PEs of a set row, which need consecutive input rows, read consecutive words.
class RsEngine final : public ArrayEngine {
 public:
  RsEngine(RsMapping m, OperandValues v, std::int64_t pes) : m_(std::move(m)), wt_(std::move(v.b)) {
    if (static_cast<std::int64_t>(v.a.size()) != m_.N * m_.C * m_.H * m_.W ||
        static_cast<std::int64_t>(wt_.size()) != m_.M * m_.C * m_.R * m_.S)
      throw std::invalid_argument("rs engine: operand sizes do not match lower_to_conv(op)");
    hp_ = m_.H + 2 * m_.P;
    wp_ = m_.W + 2 * m_.P;
    plane_ = hp_ * wp_;
    in_.assign(m_.N * m_.C * plane_, 0.0);
    for (std::int64_t nc = 0; nc < m_.N * m_.C; ++nc)
      for (std::int64_t y = 0; y < m_.H; ++y)
        for (std::int64_t col = 0; col < m_.W; ++col)
          in_[nc * plane_ + (col + m_.P) * hp_ + y + m_.P] = v.a[(nc * m_.H + y) * m_.W + col];
    acc_.assign(m_.N * m_.M * m_.E * m_.F, 0.0);
    written_.assign(acc_.size(), 0);
    st_.pes = pes;
    st_.mapping = m_.summary();
    // Lines of a class are round_up(rep w) PEs apart; h round_up(rep w) <= rows (cols + 7).
    stride_ = round_up(m_.rows * (m_.cols + kAlign - 1));
    wrf_.assign(stride_ * m_.p * m_.q * m_.chunk_cols, 0.0);
    irf_.assign(stride_ * m_.q * m_.chunk_cols, 0.0);
    prf_.assign(stride_ * m_.p, 0.0);
    link_.assign(stride_, 0.0);
    row0_.assign(m_.rows, 0);
    readers_.assign(m_.rows, 0);
    slots_.reserve(stride_);
    order_.reserve(stride_);
    lines_.reserve(stride_);
    groups_.reserve(stride_);
    pending_.reserve(stride_);
    setup_class();
    start_pass();
  }

  bool step() override {
    if (done_) return false;
    commit_pending();
    active_ = 0;
    for (Line& ln : lines_) {
      const std::int64_t tau = t_ - ln.delay;
      if (tau < 0) continue;
      const Group& g = groups_[ln.g];
      if (tau < g.load) {
        load(ln, g, tau);
      } else if (tau < g.end) {
        compute(ln, g);
      }
    }
    // Every MAC reads an input, a weight and a psum and writes the psum: counted once per
    // cycle rather than per line.
    st_.macs += active_;
    for (int o = 0; o < kNumOperands; ++o) st_.rf.reads[o] += active_;
    st_.rf.writes[kOfmap] += active_;
    ++t_;
    ++st_.compute_cycles;
    if (t_ == pass_len_) next_pass();
    return true;
  }

  const OpStats& stats() const override { return st_; }
  const std::vector<double>& result() const override {
    if (!done_ || out_.empty()) {  // the buffer holds the outputs column-major
      out_.assign(acc_.size(), 0.0);
      for (std::int64_t nm = 0; nm < m_.N * m_.M; ++nm)
        for (std::int64_t x = 0; x < m_.F; ++x)
          for (std::int64_t e = 0; e < m_.E; ++e)
            out_[(nm * m_.E + e) * m_.F + x] =
                acc_[((nm / m_.M * m_.F + x) * m_.M + nm % m_.M) * m_.E + e];
    }
    return out_;
  }
  int active_pes() const override { return static_cast<int>(active_); }
  std::int64_t fold() const override { return pass_; }

 private:
  struct Slot {            // one job placed on the array for this pass: its operands' base offsets
    std::int64_t off = 0;  // first kernel column of its row chunk
    std::int64_t wbase = 0;  // wt_ index of (filter fg p, channel cg q, row 0, column off)
    std::int64_t ibase = 0;  // in_ index of (image n, channel cg q, column off, row 0)
    std::int64_t obase = 0;  // acc_ index of (image n, column 0, filter fg p, row e0)
    std::int64_t p = 0, q = 0, s = 0;                // its job's
    std::int64_t pos = 0;                            // its place in its stack (0: the bottom)
    bool reads_inputs = true, reads_weights = true;  // from the buffer (not a neighbour's)
    bool from_below = false;  // adds the partial sums of the set below it (chained)
    bool top = true;          // writes its partial sums back (no set above adds them)
  };
  // Consecutive slots [z0, z1) of the layout whose jobs share (p, q, s) and their place in
  // their stacks (without chains, every set is a stack of one).
  struct Group {
    std::int64_t z0 = 0, z1 = 0;
    std::int64_t p = 0, q = 0, s = 0;
    std::int64_t pos = 0;
    std::int64_t below = 0;          // layout distance to the set below each of its sets (pos > 0)
    std::int64_t tops = 0;           // its sets that write back
    std::int64_t chained = 0;        // its sets that add the partial sums of the set below
    std::int64_t load = 0, end = 0;  // preload cycles p q s; preload + F p q s
    // Sets that read their weights from the buffer: the others' jobs have the same weights
    // as the set before them, whose reads are multicast to them.
    std::int64_t weight_readers = 0;
    // The chunk offsets (first kernel column) of the sets that read their inputs from the
    // buffer (likewise) and how many have each: a few distinct values (one per row chunk),
    // where the sets are many.
    std::vector<std::pair<std::int64_t, std::int64_t>> offsets;
  };
  struct Line {  // set row i of every set of a group
    int g = 0;
    std::int64_t i = 0;
    std::int64_t delay = 0;  // skew: pos h + h - 1 - i
    std::int64_t pe0 = 0;    // layout index of its first PE
    std::int64_t n = 0;      // its PEs
    std::int64_t x = 0, c = 0, s = 0, f = 0;
    std::int64_t base = 0;  // (x U) mod s: input RF slot of tap 0
  };
  struct Pending {  // top-row psums (x, f) of a group, in its link registers
    int g = 0;
    std::int64_t f = 0, x = 0;
  };

  const RsClass& cls() const { return m_.classes[cls_]; }
  bool real_col(std::int64_t col) const { return col >= m_.P && col < m_.P + m_.W; }

  // Padded input row of the first PE of each set row (PE j's is j U further), and per set
  // row how many of its PEs trigger the single buffer read of a multicast input
  // row (the bottom-most PE of its diagonal, the first to need it; none for padding rows).
  void setup_class() {
    const RsClass& k = cls();
    pitch_ = round_up(k.rep() * k.w);
    for (std::int64_t i = 0; i < k.h; ++i) {
      row0_[i] = k.e0 * m_.U + k.r0 + i;
      readers_[i] = 0;
      for (std::int64_t j = 0; j < k.w; ++j) {
        const std::int64_t y = (k.e0 + j) * m_.U + k.r0 + i;
        bool first = y >= m_.P && y < m_.P + m_.H;
        for (std::int64_t i2 = i + 1; i2 < k.h && first; ++i2) {
          const std::int64_t d = y - k.r0 - i2;
          if (d >= 0 && d % m_.U == 0 && d / m_.U >= k.e0 && d / m_.U < k.e0 + k.w) first = false;
        }
        readers_[i] += first;
      }
    }
  }

  // Places the pass's jobs: in job order, consecutive jobs fill a stack from the bottom up
  // (stack(k) sets high), then the next stack; in the layout, slots are ordered by place in
  // the stack, then stack, so that the sets of a group at one height are consecutive.
  void start_pass() {
    const RsClass& k = cls();
    order_.clear();
    slots_.clear();
    groups_.clear();
    lines_.clear();
    const std::int64_t first = pass_in_cls_ * k.rep();
    const std::int64_t last = std::min(first + k.rep(), m_.jobs_per_class);
    const std::int64_t RS = m_.R * m_.S, c = m_.stack(k), sets = last - first;
    std::int64_t max_end = 0;
    RsJob prev;
    for (std::int64_t idx = first; idx < last; ++idx) {
      const std::int64_t z = idx - first;
      const RsJob jb = m_.job(idx);
      Slot slot;
      slot.off = jb.off;
      slot.wbase = (jb.fg * m_.p * m_.C + jb.cg * m_.q) * RS + jb.off;
      slot.ibase = (jb.n * m_.C + jb.cg * m_.q) * plane_ + jb.off * hp_;
      slot.obase = (jb.n * m_.F * m_.M + jb.fg * m_.p) * m_.E + k.e0;
      slot.p = jb.p;
      slot.q = jb.q;
      slot.s = jb.s;
      slot.pos = z % c;
      max_end = std::max(max_end, (m_.F + 1) * jb.p * jb.q * jb.s);
      // A set shares the reads of the set before it in job order where their jobs are of one
      // category and differ only in the filter group (inputs) or only in the image
      // (weights); it adds the partial sums of the set below it in its stack where they
      // have the same outputs.
      const bool same_kind = z > 0 && prev.p == jb.p && prev.q == jb.q && prev.s == jb.s;
      const bool same_place = same_kind && prev.cg == jb.cg && prev.k == jb.k;
      slot.reads_weights = !(same_place && prev.fg == jb.fg);
      slot.reads_inputs = !(same_place && prev.n == jb.n);
      slot.from_below = slot.pos > 0 && same_kind && order_.back().obase == slot.obase;
      if (slot.from_below) order_.back().top = false;
      order_.push_back(slot);
      prev = jb;
    }
    // Layout: place pos's slots start at the sum of the lower places' counts (a partial last
    // pass has fewer stacks at the upper places).
    std::vector<std::int64_t>& at_pos = at_pos_;
    at_pos.assign(static_cast<std::size_t>(c + 1), 0);
    for (std::int64_t pos = 0; pos < c; ++pos)
      at_pos[pos + 1] = at_pos[pos] + std::max<std::int64_t>(0, (sets - pos + c - 1) / c);
    slots_.resize(static_cast<std::size_t>(sets));
    for (std::int64_t z = 0; z < sets; ++z) slots_[at_pos[z % c] + z / c] = order_[z];
    for (std::int64_t z = 0; z < sets; ++z) {
      const Slot& sl = slots_[z];
      if (groups_.empty() || groups_.back().p != sl.p || groups_.back().q != sl.q ||
          groups_.back().s != sl.s || groups_.back().pos != sl.pos) {
        Group g;
        g.z0 = z;
        g.p = sl.p;
        g.q = sl.q;
        g.s = sl.s;
        g.pos = sl.pos;
        g.below = sl.pos > 0 ? at_pos[sl.pos] - at_pos[sl.pos - 1] : 0;
        g.load = sl.p * sl.q * sl.s;
        g.end = (m_.F + 1) * g.load;
        groups_.push_back(g);
      }
      Group& g = groups_.back();
      g.z1 = z + 1;
      g.weight_readers += sl.reads_weights;
      g.tops += sl.top;
      g.chained += sl.from_below;
      if (sl.reads_inputs) {
        auto it = std::find_if(
            g.offsets.begin(), g.offsets.end(),
            [&](const std::pair<std::int64_t, std::int64_t>& o) { return o.first == sl.off; });
        if (it == g.offsets.end())
          g.offsets.emplace_back(sl.off, 1);
        else
          ++it->second;
      }
    }
    // The column's skew spans its stack whether or not a pass fills it (a pass lasts as long
    // as its longest job: the closed form's job_cycles).
    pass_len_ = max_end + m_.drain(k);
    // Top first: a row reads the link register of the row below (or of the top row of the
    // set below) before that row overwrites it in the same cycle.
    for (std::size_t gi = groups_.size(); gi-- > 0;) {
      const Group& g = groups_[gi];
      for (std::int64_t i = 0; i < k.h; ++i) {
        Line ln;
        ln.g = static_cast<int>(gi);
        ln.i = i;
        ln.delay = g.pos * k.h + k.h - 1 - i;
        ln.pe0 = i * pitch_ + g.z0 * k.w;
        ln.n = (g.z1 - g.z0) * k.w;
        lines_.push_back(ln);
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
        lines_.clear();
        if (m_.psums_in_accumulator) {  // the finished outputs drain to the buffer
          const auto outputs = static_cast<Count>(acc_.size());
          st_.acc.reads[kOfmap] += outputs;
          st_.buffer.writes[kOfmap] += outputs;
        }
        return;
      }
      setup_class();
    }
    start_pass();
  }

  // Weight word tau of each job's row chunk arrives (multicast along the set row); the
  // first q s cycles also bring the first input window, each PE its own row.
  void load(const Line& ln, const Group& g, std::int64_t tau) {
    const RsClass& k = cls();
    const std::int64_t w = k.w, S = g.s;
    const std::int64_t f = tau / (g.q * S), c = (tau / S) % g.q, s = tau % S;
    const std::int64_t wofs = ((f * m_.C + c) * m_.R + k.r0 + ln.i) * m_.S + s;
    double* wrf = &wrf_[tau * stride_ + ln.pe0];
    for (std::int64_t z = g.z0; z < g.z1; ++z, wrf += w) {
      const double value = wt_[slots_[z].wbase + wofs];
      for (std::int64_t j = 0; j < w; ++j) wrf[j] = value;
    }
    st_.rf.writes[kFilter] += ln.n;
    st_.noc.reads[kFilter] += ln.n;
    st_.buffer.reads[kFilter] += g.weight_readers;
    if (tau < g.q * S) deliver_input(ln, g, tau / S, tau % S, tau % S);
  }

  // Column `cc` (of the job's row chunk) of channel ci enters every PE's window at `slot`.
  void deliver_input(const Line& ln, const Group& g, std::int64_t ci, std::int64_t cc,
                     std::int64_t slot) {
    const std::int64_t w = cls().w, U = m_.U, src0 = ci * plane_ + cc * hp_ + row0_[ln.i];
    double* __restrict dst = &irf_[(ci * m_.chunk_cols + slot) * stride_ + ln.pe0];
    std::int64_t real = 0;
    const Slot* sl = &slots_[static_cast<std::size_t>(g.z0)];
    const double* in = in_.data() + src0;
    // The stride test once per delivery, not per set: this runs every clock with 1-word RFs.
    if (U == 1 && w <= 2) {
      // Narrow sets (e.g. two output rows: 1-word register files make many of them): a
      // fixed-width copy, without the general loop's vector prologue and remainder.
      for (std::int64_t z = g.z0; z < g.z1; ++z, dst += w) {
        const double* __restrict src = in + sl[z - g.z0].ibase;
        dst[0] = src[0];
        if (w == 2) dst[1] = src[1];
      }
    } else if (U == 1) {
      for (std::int64_t z = g.z0; z < g.z1; ++z, dst += w) {
        const double* __restrict src = in + sl[z - g.z0].ibase;
        for (std::int64_t j = 0; j < w; ++j) dst[j] = src[j];
      }
    } else {
      for (std::int64_t z = g.z0; z < g.z1; ++z, dst += w) {
        const double* __restrict src = in + sl[z - g.z0].ibase;
        for (std::int64_t j = 0; j < w; ++j) dst[j] = src[j * U];
      }
    }
    // The reading sets whose column is a real one (not padding), by chunk offset.
    for (const auto& [off, sets] : g.offsets)
      if (real_col(off + cc)) real += sets;
    st_.rf.writes[kIfmap] += ln.n;
    st_.noc.reads[kIfmap] += ln.n;
    st_.buffer.reads[kIfmap] += readers_[ln.i] * real;
  }

  // Column x of a chunk needs its columns [x U, x U + s); the last min(U, s) of them are new.
  void slide_window(const Line& ln, const Group& g) {
    const std::int64_t end = ln.x * m_.U + g.s;
    for (std::int64_t ci = 0; ci < g.q; ++ci)
      for (std::int64_t cc = end - m_.slide(g.s); cc < end; ++cc)
        deliver_input(ln, g, ci, cc, g.s == 1 ? 0 : cc % g.s);
  }

  void compute(Line& ln, const Group& g) {
    const std::int64_t S = g.s;
    if (ln.x > 0 && ln.c == 0 && ln.s == 0 && ln.f == 0) slide_window(ln, g);
    std::int64_t in_slot = ln.base + ln.s;
    if (in_slot >= S) in_slot -= S;
    const std::int64_t wi = (ln.f * g.q + ln.c) * S + ln.s, ii = ln.c * m_.chunk_cols + in_slot;
    double* __restrict psum = &prf_[ln.f * stride_ + ln.pe0];
    const double* __restrict wrf = &wrf_[wi * stride_ + ln.pe0];
    const double* __restrict irf = &irf_[ii * stride_ + ln.pe0];
    const std::int64_t n = ln.n;
    for (std::int64_t j = 0; j < n; ++j) psum[j] += wrf[j] * irf[j];
    active_ += n;
    if (ln.c == g.q - 1 && ln.s == S - 1) finish_psum(ln);
    if (++ln.f == g.p) {
      ln.f = 0;
      if (++ln.s == S) {
        ln.s = 0;
        if (++ln.c == g.q) {
          ln.c = 0;
          ++ln.x;
          ln.base += m_.U % S;
          if (ln.base >= S) ln.base -= S;
        }
      }
    }
  }

  // The psum of (x, f) is complete: add the one the PE below sent last cycle and pass it
  // on (up the column, or from the top row towards the buffer).
  void finish_psum(const Line& ln) {
    const RsClass& k = cls();
    const std::int64_t n = ln.n;
    double* __restrict psum = &prf_[ln.f * stride_ + ln.pe0];
    double* __restrict link = &link_[ln.pe0];
    const Group& g = groups_[ln.g];
    if (ln.i < k.h - 1) {
      const double* __restrict below = &link_[ln.pe0 + pitch_];
      for (std::int64_t j = 0; j < n; ++j) {
        link[j] = psum[j] + below[j];
        psum[j] = 0.0;
      }
      st_.rf.writes[kOfmap] += n;
    } else if (g.chained == 0) {
      for (std::int64_t j = 0; j < n; ++j) {
        link[j] = psum[j] + 0.0;
        psum[j] = 0.0;
      }
    } else {
      // The bottom row of a set chained to the set below adds that set's top row (in the
      // layout, g.below slots back, row 0), which finished one cycle earlier.
      const std::int64_t w = k.w;
      const double* __restrict below = &link_[(g.z0 - g.below) * w];
      for (std::int64_t z = g.z0; z < g.z1; ++z) {
        const std::int64_t o = (z - g.z0) * w;
        const double add = slots_[z].from_below ? 1.0 : 0.0;
        for (std::int64_t j = o; j < o + w; ++j) {
          link[j] = psum[j] + add * below[j];
          psum[j] = 0.0;
        }
      }
      st_.rf.writes[kOfmap] += g.chained * w;
    }
    if (ln.i == 0 && g.tops > 0) pending_.push_back({ln.g, ln.f, ln.x});
    st_.rf.reads[kOfmap] += n;
    st_.noc.writes[kOfmap] += n;
  }

  // The buffer (or the output accumulator, when it holds the op's outputs) latches last
  // cycle's top-row psums (still in their link registers); a second write to an output is a
  // read-modify-write (accumulation across channel groups, filter-row segments and row
  // chunks). A set writes back the w output rows of its strip
  // at once, and every write to those outputs comes from a set of the same strip (the
  // strips partition the rows), so the run is written for the first time all together or
  // not at all: one flag per run, kept at its first output.
  void commit_pending() {
    if (pending_.empty()) return;
    const std::int64_t w = cls().w, E = m_.E, ME = m_.M * m_.E;
    for (const Pending& pd : pending_) {
      const Group& g = groups_[pd.g];
      const double* __restrict link = &link_[g.z0 * w];  // row 0: layout index z w + j
      // Sets of one pass often hold the same outputs (other channel groups or row chunks
      // of the same image and filters): the write-backs of a run of such sets are summed
      // in a register, in the same order, and stored once; through memory, set after set,
      // each addition waited for the store before it. Where filter groups are innermost,
      // neighbouring sets often hold neighbouring outputs instead (the next group's lie w
      // words on when a group is one filter and the strip the whole column): a run of those
      // is one loop over its words.
      const std::int64_t at = pd.x * ME + pd.f * E;
      std::int64_t rmw = 0;
      for (std::int64_t z = g.z0; z < g.z1;) {
        if (!slots_[z].top) {  // a set above adds its partial sums
          ++z;
          continue;
        }
        const std::int64_t o0 = slots_[z].obase + at;
        const double* __restrict first = link + (z - g.z0) * w;
        std::int64_t z1 = z + 1;
        while (z1 < g.z1 && slots_[z1].top && slots_[z1].obase == slots_[z1 - 1].obase + w) ++z1;
        if (z1 > z + 1) {
          for (std::int64_t y = z; y < z1; ++y) {
            std::uint8_t& seen = written_[slots_[y].obase + at];
            rmw += seen;
            seen = 1;
          }
          double* __restrict out = &acc_[o0];
          const std::int64_t words = (z1 - z) * w;
          for (std::int64_t j = 0; j < words; ++j) out[j] += first[j];
          z = z1;
          continue;
        }
        while (z1 < g.z1 && slots_[z1].top && slots_[z1].obase == slots_[z].obase) ++z1;
        rmw += written_[o0] + (z1 - z - 1);  // after the first, each set finds them written
        written_[o0] = 1;
        for (std::int64_t j = 0; j < w; ++j) {
          double sum = acc_[o0 + j];
          for (const double* l = first + j; l < first + (z1 - z) * w; l += w) sum += *l;
          acc_[o0 + j] = sum;
        }
        z = z1;
      }
      AccessCounts& port = m_.psums_in_accumulator ? st_.acc : st_.buffer;
      port.reads[kOfmap] += rmw * w;
      port.writes[kOfmap] += g.tops * w;
    }
    pending_.clear();
  }

  RsMapping m_;
  // in_: zero-padded input, column-major planes (wp_ columns of hp_ rows), so that the PEs
  // of a set row (consecutive output rows) read consecutive words when U = 1; acc_: the
  // buffer's outputs, per image and output column the filters' output rows (a set row writes
  // back consecutive words, and so do neighbouring sets of consecutive filters whose strip
  // is the whole column); result() returns them row-major.
  std::vector<double> in_, wt_, acc_;
  mutable std::vector<double> out_;
  std::int64_t hp_ = 0, wp_ = 0, plane_ = 0;
  std::vector<std::uint8_t> written_;
  OpStats st_;
  std::int64_t stride_ = 0;  // words of one RF word across the array (rows x cols)
  std::int64_t pitch_ = 0;   // layout distance of set row i and i + 1 of the class
  RfVector wrf_, irf_, prf_, link_;
  std::vector<std::int64_t> row0_;     // per set row: padded input row of its PE 0
  std::vector<std::int64_t> readers_;  // per set row
  std::vector<Slot> order_;            // this pass's slots in job order
  std::vector<Slot> slots_;            // and in the layout
  std::vector<std::int64_t> at_pos_;   // layout index of each stack place's first slot
  std::vector<Group> groups_;
  std::vector<Line> lines_;
  std::vector<Pending> pending_;
  std::size_t cls_ = 0;
  std::int64_t pass_in_cls_ = 0, pass_ = 0, t_ = 0, pass_len_ = 0;
  bool done_ = false;
  std::int64_t active_ = 0;
};

}  // namespace

std::unique_ptr<ArrayEngine> make_rs_engine(RsMapping mapping, OperandValues values,
                                            std::int64_t pes) {
  return std::make_unique<RsEngine>(std::move(mapping), std::move(values), pes);
}

}  // namespace trainsim
