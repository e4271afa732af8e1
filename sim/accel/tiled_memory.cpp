#include "sim/accel/tiled_memory.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <functional>
#include <limits>
#include <optional>

#include "dataflows/accumulator.h"
#include "dataflows/tile_values.h"
#include "mapping/tile_walk.h"
#include "sim/accel/fast_context.h"
#include "sim/accel/mapping_hints.h"
#include "sim/accel/scalesim_memory.h"
#include "sim/accel/vector_unit.h"
#include "sim/core/checked_span.h"
#include "sim/core/error.h"
#include "sim/core/interrupt.h"

namespace trainsim {

namespace {

// What one step of a streamed schedule moves and whether it starts a new output tile.
struct Transfers {
  std::int64_t fetch_bytes = 0, write_bytes = 0;
  bool new_output = false;
};

// The double-buffered schedule of any sequence of steps. `next` yields step t's transfers;
// `compute` runs step t (after next() has produced it); the context's clock is the result.
//
// `give_up`, asked after each step, may end the schedule early (the caller then ignores the
// clock); returns whether it ran to the end. `skip(state)`, called when the next step is
// due, may move the schedule ahead by repetitions of what it just did (ScheduleState's
// cycles and the context's clock, and what `next` yields); it returns true to give up.
// (A template: the tile walk calls its functions for each of up to a million tiles.)
struct ScheduleState {
  std::int64_t fetched = 0, out_prev = 0, out_prev2 = 0, written = 0;
};

template <class Next, class Compute, class GiveUp, class Skip>
bool run_double_buffered(ExecutionContext& ctx, bool double_buffer, int output_slots, Next&& next,
                         Compute&& compute_current, GiveUp&& give_up, Skip&& skip) {
  Transfers cur, nxt;
  if (!next(cur)) return true;
  ScheduleState st;
  st.fetched = ctx.transfer(cur.fetch_bytes);
  auto& [fetched, out_prev, out_prev2, written] = st;
  bool first = true;
  for (std::int64_t tile = 1;; ++tile) {
    if ((tile & 4095) == 0) check_interrupt();  // an op of millions of tiles takes seconds
    const bool more = next(nxt);
    std::int64_t ready = fetched;
    // A new output tile takes the slot of the output tile two back (one back with a single
    // output slot), which must be written out first. 0 slots: outputs stay whole (kept).
    if (output_slots > 0 && cur.new_output && !first)
      ready = std::max(ready, output_slots == 2 ? out_prev2 : out_prev);
    ctx.wait_until(ready);
    first = false;
    std::int64_t next_fetched = 0;
    if (more && double_buffer) next_fetched = ctx.transfer(nxt.fetch_bytes);
    compute_current();
    if (cur.write_bytes > 0) {
      const std::int64_t done = ctx.transfer(cur.write_bytes);
      out_prev2 = out_prev;
      out_prev = done;
      written = std::max(written, done);
    }
    if (!more) break;
    if (give_up()) return false;
    if (!double_buffer) next_fetched = ctx.transfer(nxt.fetch_bytes);
    fetched = next_fetched;
    cur = nxt;
    if (skip(st)) return false;
  }
  ctx.wait_until(written);
  return true;
}

// What a schedule's repeated step is recognised by: every time still pending (the channel,
// the fetch in flight, the last output write-backs) as its distance ahead of the clock, one
// already past counting as now (it only enters maxima with now).
using Pending = std::array<std::int64_t, 5>;
Pending pending_ahead(const ExecutionContext& ctx, const ScheduleState& st) {
  const std::int64_t now = ctx.now();
  auto ahead = [&](std::int64_t t) { return std::max<std::int64_t>(t - now, 0); };
  return {ahead(ctx.channel_free()), ahead(st.fetched), ahead(st.out_prev), ahead(st.out_prev2),
          ahead(st.written)};
}

// Moves a schedule whose steps repeat from the same pending state `periods` periods of
// `period` cycles ahead: the clock, the channel and every pending time. False (nothing moved)
// if the clock would pass 2^62: the caller then walks on, and the walk's own checked sums
// name the key to blame (sim/core/checked_span.h), as without the jump.
bool jump_periods(ExecutionContext& ctx, ScheduleState& st, const Pending& pending,
                  std::int64_t periods, std::int64_t period) {
  std::int64_t span = 0, t = 0;
  if (__builtin_mul_overflow(periods, period, &span) ||
      __builtin_add_overflow(ctx.now(), span, &t) ||
      !(static_cast<double>(t) +
            static_cast<double>(*std::max_element(pending.begin(), pending.end())) <
        kMaxSpan))
    return false;
  ctx.jump(t, t + pending[0]);
  st = {t + pending[1], t + pending[2], t + pending[3], t + pending[4]};
  return true;
}

std::array<std::int64_t, kNumDims> pinned_tiles(const NestProblem& p, const AcceleratorSpec& acc,
                                                MappingConstraints& c) {
  for (int d = 0; d < kNumDims; ++d)
    c.tile[d] = acc.mapping.tile[d] > 0 ? std::min(acc.mapping.tile[d], p.extent[d]) : 0;
  c.stationary = acc.mapping.stationary;
  return c.tile;
}

// Walking a mapping costs a few tens of nanoseconds per tile. Only a buffer far too small for
// the op has more tiles than this (the search's last resort, one-element tiles).
constexpr std::int64_t kMaxWalkedTiles = std::int64_t{1} << 20;

// Whether an output tile's partial sums may stay in the output accumulator between its
// reduction tiles: the accumulator holds the largest output tile, and the reduction tiles of
// an output tile run one after another. (The array's outputs must also pass through it,
// which only the tiles' counts say: add_memory_counts checks them.)
bool accumulator_holds_output(const SearchResult& sr, const AcceleratorSpec& acc) {
  return sr.cost.accumulate_words > 0 && accumulator_holds(sr.cost.tile_words[kOfmap], acc) &&
         output_accumulates(sr.mapping, sr.cost.trips);
}

// The memory level's own counts of a mapping: DRAM per operand, DMA fills and drains, the
// accumulation reads, and what residency kept on chip. `s` holds the tiles' counts already.
void add_memory_counts(const NestProblem& p, const SearchResult& sr, const OperandResidency& res,
                       const AcceleratorSpec& acc, OpStats& s) {
  const std::int64_t wb = acc.word_bytes();
  const MappingCost& c = sr.cost;
  const auto total = p.total_words();
  const bool held = accumulator_holds_output(sr, acc) && s.acc.writes[kOfmap] > 0;
  if (held) {
    // Each tile drained its outputs to the buffer through the accumulator
    // (dataflows/accumulator.h); now
    // only an output tile's last reduction tile does, the others leave their sums there and
    // the next tile's first psums add onto them (a read that replaces the drain's, so the
    // accumulator's counts stand). The buffer takes each output once (fewer if some took no
    // work at all) and reads no partial sums back.
    s.buffer.writes[kOfmap] = std::min(s.buffer.writes[kOfmap], static_cast<Count>(total[kOfmap]));
  }
  for (int o = 0; o < kNumOperands; ++o) {
    s.dram_read_bytes[o] = static_cast<Count>(c.dram_read_words[o] * wb);
    s.buffer.writes[o] += static_cast<Count>(c.dram_read_words[o]);
  }
  s.dram_write_bytes[kOfmap] = static_cast<Count>(c.dram_write_words[kOfmap] * wb);
  s.buffer.reads[kOfmap] +=
      static_cast<Count>(c.dram_write_words[kOfmap] + (held ? 0 : c.accumulate_words));
  for (int o : {kIfmap, kFilter})
    if (res.kind[o] == OperandResidency::kOnChip) s.onchip_read_bytes += total[o] * wb;
  if (!res.write_out) s.skipped_write_bytes += total[kOfmap] * wb;
  s.mapping.emplace_back("buffer_tiles", c.tiles);
}

// An op of more than kMaxWalkedTiles tiles: the counts are exact (the tiles' classes, the
// closed form), the time a bound: the DMA streams everything while the array computes.
OpStats run_bounded(const NestProblem& p, const SearchResult& sr, const OperandResidency& res,
                    const AcceleratorSpec& acc, const Dataflow& df, ExecutionContext& ctx) {
  if (ctx.clocks_values())
    throw UserError(p.op.describe() + ": the buffer mapping has " + std::to_string(sr.cost.tiles) +
                    " tiles, too many to clock (" + std::to_string(kMaxWalkedTiles) +
                    " at most): use fidelity: fast, or a larger buffer");
  OpStats s;
  s.pes = acc.pes();
  FastContext memo(acc, &df);
  for (const auto& [box, count] : tile_classes(p, sr.mapping)) {
    const OpStats& one = memo.compute_tile(p, box);
    if (s.mapping.empty()) s.mapping = one.mapping;
    s.add_repeated(one, count);
  }
  add_memory_counts(p, sr, res, acc, s);
  const std::int64_t done = ctx.transfer(static_cast<std::int64_t>(s.dram_bytes()));
  ctx.busy(s.compute_cycles);
  ctx.wait_until(done);
  return s;
}

// A transfer of `words` alone on the channel: its occupancy and latency (FastContext).
std::int64_t transfer_cycles(std::int64_t words, const AcceleratorSpec& acc) {
  return words > 0 ? dram_occupancy(words * acc.word_bytes(), acc) + acc.dram.latency_cycles : 0;
}

// The cycles run_double_buffered takes on a private channel (FastContext) when it provably
// waits only for the first fetch, the write-back of each output tile before the next can take
// its slot (one output slot), and the last write-back; nullopt when it may wait otherwise.
// With double buffering, each tile's fetch is issued when the previous tile starts; if the
// cheapest tile outlasts the largest fetch and its latency plus the largest write-back (of
// the tile before, possibly still on the channel), every fetch has arrived and the channel is
// free when its tile is due, so by induction each tile starts as the previous one ends, but
// for a new output tile with one output slot, which waits for the previous output tile's
// write-back (issued as it ended, on a free channel). Outputs kept whole need no slot; with
// two slots the write-back of the output tile two back has long arrived.
std::optional<std::int64_t> closed_form_cycles(const NestProblem& p, const BufferMapping& m,
                                               const MappingCost& c, const OperandResidency& res,
                                               const AcceleratorSpec& acc,
                                               std::int64_t compute_cycles,
                                               std::int64_t min_tile_cycles) {
  if (!acc.buffer.double_buffer) return std::nullopt;
  const std::int64_t wb = acc.word_bytes();
  const bool keep = res.kind[kOfmap] == OperandResidency::kKeep;
  std::int64_t fetch = 0;
  for (int o : {kIfmap, kFilter})
    if (res.kind[o] == OperandResidency::kStream) fetch += c.tile_words[o];
  if (c.dram_read_words[kOfmap] > 0) fetch += c.tile_words[kOfmap];
  const std::int64_t write = !keep || res.write_out ? c.tile_words[kOfmap] : 0;
  if (min_tile_cycles <
      dram_occupancy(write * wb, acc) + dram_occupancy(fetch * wb, acc) + acc.dram.latency_cycles)
    return std::nullopt;
  const auto [first, last] = first_fetch_and_last_write(p, m, c, res);
  std::int64_t cycles = transfer_cycles(first, acc) + compute_cycles + transfer_cycles(last, acc);
  bool output_changes = false;
  for (int d : {kDimN, kDimK, kDimP, kDimQ}) output_changes |= c.trips[d] > 1;
  if (!keep && output_changes && !c.output_double_buffered) {
    // One slot, so the output accumulates over the reduction innermost: every output tile
    // is visited once and written once; all but the last are waited for.
    std::array<std::vector<TileSpan>, 4> spans;
    const int dims[] = {kDimN, kDimK, kDimP, kDimQ};
    for (int i = 0; i < 4; ++i)
      spans[static_cast<std::size_t>(i)] = tile_spans(p, dims[i], m.tile[dims[i]]);
    for (const TileSpan& n : spans[0])
      for (const TileSpan& k : spans[1])
        for (const TileSpan& r : spans[2])
          for (const TileSpan& q : spans[3])
            cycles += n.count * k.count * r.count * q.count *
                      transfer_cycles(n.extent * k.extent * r.extent * q.extent, acc);
    cycles -= transfer_cycles(last, acc);
  }
  return cycles;
}

// The tiles of a mapping run against `ctx`, double-buffered: what both fidelities do for an
// op, and what the search prices each candidate with (so that its score is exactly the fast
// fidelity's result). A context that times the schedule alone takes the counts from the tile
// classes and the closed form's time where it applies (`closed_form`), the same cycles and
// counts without walking the tiles; walking, it gives up once the op cannot end by `deadline`
// (then `*finished` is false and the clock meaningless).
OpStats run_mapping(const NestProblem& p, const SearchResult& sr, const OperandResidency& res,
                    const AcceleratorSpec& acc, const Dataflow& df, ExecutionContext& ctx,
                    bool closed_form = true,
                    std::int64_t deadline = std::numeric_limits<std::int64_t>::max(),
                    bool* finished = nullptr, bool counts_only = false) {
  if (finished) *finished = true;
  if (sr.cost.tiles > kMaxWalkedTiles) return run_bounded(p, sr, res, acc, df, ctx);
  const BufferCapacity cap = BufferCapacity::of(acc);
  const std::int64_t wb = acc.word_bytes();
  const bool alone = ctx.times_alone();
  OpStats s;
  s.pes = acc.pes();
  if (alone) {
    // The counts by tile class, then the time if the schedule provably waits only where the
    // closed form knows.
    std::int64_t min_tile = std::numeric_limits<std::int64_t>::max();
    for (const auto& [box, count] : tile_classes(p, sr.mapping)) {
      const OpStats& one = ctx.tile_cost(p, box);
      if (s.mapping.empty()) s.mapping = one.mapping;
      min_tile = std::min(min_tile, one.compute_cycles);
      s.add_repeated(one, count);
    }
    add_memory_counts(p, sr, res, acc, s);
    if (counts_only) return s;
    if (closed_form && sr.score.exact && sr.score.schedule_cycles > 0) {
      // The search priced this mapping on such a context already.
      ctx.wait_until(ctx.now() + sr.score.schedule_cycles);
      return s;
    }
    if (closed_form) {
      if (const auto cycles =
              closed_form_cycles(p, sr.mapping, sr.cost, res, acc, s.compute_cycles, min_tile)) {
        ctx.wait_until(ctx.now() + *cycles);
        return s;
      }
    }
  }
  TileWalk walk(p, sr.mapping, res);
  // The schedule asks for tile t+1's transfers before it runs tile t: at most two steps
  // are in flight.
  std::array<TileStep, 2> steps;
  std::int64_t produced = 0, consumed = 0;
  auto next = [&](Transfers& t) {
    TileStep& step = steps[static_cast<std::size_t>(produced & 1)];
    if (!walk.next(step)) return false;
    ++produced;
    std::int64_t words = 0;
    for (int o = 0; o < kNumOperands; ++o) words += step.fetch_words[o];
    t = {words * wb, step.write_words * wb, step.new_output};
    return true;
  };
  std::int64_t computed = 0;
  auto compute = [&]() {
    const TileStep& step = steps[static_cast<std::size_t>(consumed++ & 1)];
    const OpStats& t = ctx.compute_tile(p, step.box);
    computed += t.compute_cycles;
    if (alone) return;  // the counts are the classes'
    if (s.mapping.empty()) s.mapping = t.mapping;
    s.macs += t.macs;
    s.compute_cycles += t.compute_cycles;
    s.rf += t.rf;
    s.noc += t.noc;
    s.buffer += t.buffer;
    s.acc += t.acc;
  };
  // The tiles still to run take at least their compute.
  const std::int64_t total = s.compute_cycles;
  const bool may_give_up = alone && deadline != std::numeric_limits<std::int64_t>::max();
  auto give_up = [&] { return may_give_up && ctx.now() + (total - computed) > deadline; };
  const int output_slots = res.kind[kOfmap] == OperandResidency::kKeep ? 0
                           : sr.cost.output_double_buffered            ? 2
                                                                       : 1;
  // Timed alone, a loop's iterations that repeat the same tiles from the same clock state
  // (every pending cycle at the same distance from now; one already past counts as now, as
  // it only enters maxima with now) take the same cycles, so they are skipped: seen at the
  // starts of two such iterations in a row, the clock jumps by the difference for each
  // iteration after them that is alike, and the walk resumes at the first one that is not.
  // The marks are per loop: a tile that advances a loop starts an iteration of it and of
  // every loop inside it (their first, which is never skipped).
  struct Mark {
    std::int64_t iteration = -1, now = 0, computed = 0;
    Pending pending{};
  };
  std::array<Mark, kNumDims> marks;
  auto skip = [&](ScheduleState& st) {
    int loop = 0;
    std::int64_t it = 0;
    if (!alone || !walk.advanced(loop, it)) return false;
    for (int q = loop + 1; q < kNumDims; ++q) marks[static_cast<std::size_t>(q)].iteration = -1;
    Mark& mark = marks[static_cast<std::size_t>(loop)];
    const std::int64_t now = ctx.now();
    const Pending pending = pending_ahead(ctx, st);
    if (mark.iteration == it - 1 && mark.pending == pending &&
        walk.same_iterations(loop, it - 1, it)) {
      // Iterations it .. last - 1 run as it - 1 did (and, ending, ask for the first tile of
      // an iteration alike): iteration `last` starts `last - it` periods later.
      const std::int64_t last = walk.last_same(loop, it);
      const std::int64_t periods = last - it;
      if (last > it && jump_periods(ctx, st, pending, periods, now - mark.now)) {
        const std::int64_t t = ctx.now();
        computed += periods * (computed - mark.computed);
        // The step in flight becomes the first tile of `last`: the same transfers and tile
        // shape; only its origin differs.
        walk.seek(loop, last);
        consumed += periods * walk.tiles_inside(loop);
        produced = consumed;
        walk.next(steps[static_cast<std::size_t>(produced & 1)]);
        ++produced;
        mark = {last, t, computed, pending};
        return give_up();
      }
    }
    mark = {it, now, computed, pending};
    return false;
  };
  const bool done =
      run_double_buffered(ctx, cap.double_buffer, output_slots, next, compute, give_up, skip);
  if (finished) *finished = done;
  // The walk moved exactly what the closed form counts (tested), which the memory level's
  // counts come from.
  if (!alone) add_memory_counts(p, sr, res, acc, s);
  return s;
}

// Energy of a candidate for the search, priced with Eyeriss' normalized access costs (MAC 1,
// RF 1, NoC 2, buffer 6, DRAM 200 per word; an output accumulator, a small SRAM beside the
// array, at the NoC's 2): a fixed table, not the accelerator's, so that the mapping, hence
// every count, does not depend on the table a run is priced with and any run can be re-priced
// with another.
double search_energy(const OpStats& s, const AcceleratorSpec& acc) {
  return static_cast<double>(s.macs) +
         static_cast<double>(s.rf.total_reads() + s.rf.total_writes()) +
         2.0 * static_cast<double>(s.noc.total_reads() + s.noc.total_writes()) +
         6.0 * static_cast<double>(s.buffer.total_reads() + s.buffer.total_writes()) +
         2.0 * static_cast<double>(s.acc.total_reads() + s.acc.total_writes()) +
         200.0 * static_cast<double>(s.dram_bytes() / static_cast<Count>(acc.word_bytes()));
}

// The tiled model's side of the buffer-mapping search.
class TiledPricer final : public MappingPricer {
 public:
  TiledPricer(const NestProblem& p, const OperandResidency& res, const AcceleratorSpec& acc,
              const Dataflow& df)
      : p_(p),
        res_(res),
        acc_(acc),
        df_(df),
        word_bytes_(acc.word_bytes()),
        bytes_per_cycle_(acc.dram_bytes_per_cycle()) {
    // MACs the tiles execute, whatever the tiling: the tiles partition the lowered
    // convolution (its MACs on padding included, as row stationary counts them) or, for the
    // GEMM-based dataflows, the stored positions of the kernel.
    const auto& e = p.extent;
    macs_ = static_cast<double>(e[kDimN] * e[kDimK] * e[kDimC] * e[kDimP] * e[kDimQ]);
    macs_ *= p.gemm_based ? static_cast<double>(p.k_rows.count * p.k_cols.count)
                          : static_cast<double>(e[kDimR] * e[kDimS]);
  }

  std::int64_t tile_cycles(const TileBox& box) override {
    // What a tile's op depends on: its extents and, for a stride-dilated kernel, its stored
    // positions (tile_op).
    Key k;
    for (int d = 0; d < kNumDims; ++d) k[static_cast<std::size_t>(d)] = box.extent[d];
    k[7] = p_.stored_kernel_rows(box);
    k[8] = p_.stored_kernel_cols(box);
    // The tile asked last may be asked again (the tiles of one walk). Nothing more is kept:
    // on VGG-16, 95% of the search's questions are about a tile it has not asked about
    // before, and a memo of them cost more than the dataflows' closed forms it saved.
    if (have_last_ && k == last_key_) return last_cycles_;
    have_last_ = true;
    last_key_ = k;
    last_cycles_ = df_.tile_compute_cycles(p_, box, acc_);
    return last_cycles_;
  }

  MappingScore score(const BufferMapping& m, const MappingCost& c, std::int64_t deadline,
                     bool timed) override {
    SearchResult sr;
    sr.mapping = m;
    sr.cost = c;
    FastContext ctx(acc_, &df_, &stats_);
    bool finished = true;
    const OpStats s = run_mapping(p_, sr, res_, acc_, df_, ctx, true, deadline, &finished, !timed);
    MappingScore r{0, c.dram_words(), search_energy(s, acc_), finished, 0, timed};
    if (!timed) return r;
    // As evaluate_op: a limited buffer port bounds the op too.
    if (finished) r.schedule_cycles = ctx.now();
    r.cycles = finished ? std::max(ctx.now(), buffer_port_cycles(s, acc_)) : deadline + 1;
    return r;
  }

  // The schedule of run_double_buffered with a private channel (FastContext): a tile starts
  // when its fetch (issued when the previous tile started; after it, single-buffered) has
  // arrived and the previous tile has run; the op ends when the last write has arrived. A
  // transfer of b bytes takes at least ceil(b / bytes per cycle) + latency.
  std::int64_t cycles_bound(const ScheduleFacts& f) const override {
    const std::int64_t wb = word_bytes_, lat = acc_.dram.latency_cycles;
    auto one = [&](std::int64_t words) { return words > 0 ? occupancy(words * wb) + lat : 0; };
    // Channel time of several transfers together: at least the floor of their bytes over
    // the bandwidth (each rounds up on its own).
    auto many = [&](std::int64_t words) {
      return static_cast<std::int64_t>(static_cast<double>(words * wb) / bytes_per_cycle_);
    };
    // An op of too many tiles to walk is timed by run_bounded: exactly this.
    if (f.tiles > kMaxWalkedTiles) return std::max(f.compute_cycles, one(f.dram_words));
    const std::int64_t ends = one(f.first_fetch_words) + one(f.last_write_words);
    const std::int64_t serial = ends + f.compute_cycles;
    const std::int64_t channel = f.dram_words > 0 ? many(f.dram_words) + lat : 0;
    const std::int64_t fetches =
        many(std::max<std::int64_t>(0, f.read_words - f.first_fetch_words)) +
        lat * f.fetching_steps;
    const bool overlap = acc_.buffer.double_buffer;
    const std::int64_t chain = ends + fetches + (overlap ? f.min_tile_cycles : f.compute_cycles);
    // Per step: a tile cannot start before its fetch, issued when the previous tile started
    // (and ran at most max_tile_cycles), has arrived: each step of a kind waits at least for
    // what its fetch takes beyond that; single-buffered, for all of it.
    std::int64_t waits = 0;
    const bool max_known = f.max_tile_cycles != std::numeric_limits<std::int64_t>::max();
    if (!overlap || max_known)
      for (const ScheduleFacts::Steps& st : f.steps)
        if (st.count > 0 && st.words > 0)
          waits += st.count *
                   std::max<std::int64_t>(0, one(st.words) - (overlap ? f.max_tile_cycles : 0));
    return std::max({serial + waits, channel, chain});
  }

  double compute_floor_factor(TileBlock block,
                              const std::array<const std::vector<TileSpan>*, 3>* spans) override {
    if (!spans) return df_.compute_floor_factor(p_, acc_, block, nullptr);
    block_tiles(p_, block, *spans, block_tiles_);
    return df_.compute_floor_factor(p_, acc_, block, &block_tiles_);
  }

  // Every dataflow reads three RF words and writes one per MAC (op_stats.h, the dataflows'
  // counting conventions); the memory level writes every word it fetches into the buffer,
  // reads every word it writes back, and reads each partial sum it accumulates onto, unless
  // an output accumulator that holds the output tile may keep them (accumulator_holds_output,
  // taken as so whatever the loop order: a bound may only be lower).
  double energy_bound(const MappingCost& c) const override {
    const double dram = static_cast<double>(c.dram_words());
    const bool held = accumulator_holds(c.tile_words[kOfmap], acc_);
    return 5.0 * macs_ + 200.0 * dram +
           6.0 * (dram + (held ? 0.0 : static_cast<double>(c.accumulate_words)));
  }

 private:
  using Key = std::array<std::int64_t, 9>;
  // dram_occupancy(bytes, acc_) with the bandwidth in bytes per cycle computed once (the
  // same double): the search bounds hundreds of thousands of candidates per network.
  std::int64_t occupancy(std::int64_t bytes) const {
    if (bytes <= 0) return 0;
    const double x = static_cast<double>(bytes) / bytes_per_cycle_;
    if (x >= 0 && x < kMaxSpan) return static_cast<std::int64_t>(std::ceil(x));
    return dram_occupancy(bytes, acc_);  // names the keys to blame
  }
  const NestProblem& p_;
  OperandResidency res_;
  const AcceleratorSpec& acc_;
  const Dataflow& df_;
  std::int64_t word_bytes_;
  double bytes_per_cycle_;
  double macs_ = 0;
  bool have_last_ = false;
  Key last_key_{};
  std::int64_t last_cycles_ = 0;
  std::vector<BlockTile> block_tiles_;  // compute_floor_factor's, kept between calls
  FastContext::Cache stats_;
};

class TiledMemory final : public MemoryModel {
 public:
  std::string name() const override { return "tiled"; }
  std::string description() const override {
    return "buffer-level loop nest per op chosen by mapping.objective (time, then DRAM "
           "traffic, by default), double-buffered DMA, tensors kept on chip between ops";
  }
  bool plans_residency() const override { return true; }

  OpStats run(const Op& op, const AcceleratorSpec& acc, const Dataflow& df,
              ExecutionContext& ctx) const override {
    const NestProblem p = make_problem(op, df.gemm_based());
    return run_mapping(p, tiled_mapping(op, acc, df), OperandResidency::of(op), acc, df, ctx);
  }

  std::string plan_text(const Op& op, const AcceleratorSpec& acc,
                        const Dataflow& df) const override {
    const NestProblem p = make_problem(op, df.gemm_based());
    const SearchResult r = tiled_mapping(op, acc, df);
    const std::string groups =
        op.repeat > 1 ? " (one of " + std::to_string(op.repeat) + " groups, run one after another)"
                      : "";
    return p.describe() + groups + "\n" +
           mapping_text(p, r.mapping, r.cost, OperandResidency::of(op),
                        static_cast<int>(acc.word_bytes()));
  }

  nlohmann::ordered_json plan_json(const Op& op, const AcceleratorSpec& acc,
                                   const Dataflow& df) const override {
    const NestProblem p = make_problem(op, df.gemm_based());
    const SearchResult r = tiled_mapping(op, acc, df);
    nlohmann::ordered_json j, tile = nlohmann::ordered_json::object(),
                              trips = nlohmann::ordered_json::object();
    for (int d = 0; d < kNumDims; ++d) {
      if (dim_name(d, p.gemm)[0] == '\0') continue;
      tile[dim_name(d, p.gemm)] = r.mapping.tile[d];
      trips[dim_name(d, p.gemm)] = r.cost.trips[d];
    }
    j["tile"] = tile;
    j["trips"] = trips;
    nlohmann::ordered_json order = nlohmann::ordered_json::array();
    for (int o : r.mapping.order)
      order.push_back(std::string("loops irrelevant to ") + operand_name(o));
    j["order"] = order;
    j["stationary"] = operand_name(r.mapping.order[2]);
    j["tiles"] = r.cost.tiles;
    const auto total = p.total_words();
    nlohmann::ordered_json ops;
    for (int o = 0; o < kNumOperands; ++o)
      ops[operand_name(o)] = {{"tile_words", r.cost.tile_words[o]},
                              {"buffer_words", r.cost.need_words[o]},
                              {"footprint_words", total[o]},
                              {"dram_read_words", r.cost.dram_read_words[o]},
                              {"dram_write_words", r.cost.dram_write_words[o]}};
    j["operands"] = ops;
    j["dram_words"] = r.cost.dram_words();
    j["minimum_dram_words"] = total[0] + total[1] + total[2];
    return j;
  }

  OpStats run_elementwise(const Op& op, const AcceleratorSpec& acc,
                          ExecutionContext& ctx) const override {
    OpStats s = elementwise_cost(op, acc);
    const ElementwiseShape& e = op.eltwise;
    const Residency& r = op.residency;
    // DRAM words in and out, and words that sit in the buffer whole for the op.
    std::int64_t in = 0, out = 0, resident_in = 0, resident_out = 0;
    bool listed = false;
    for (int i = 0; i < kMaxOpInputs; ++i) {
      const TensorUse& t = op.inputs[static_cast<std::size_t>(i)];
      if (t.words == 0) continue;
      listed = true;
      const auto bit = static_cast<std::uint8_t>(1u << i);
      if (r.in_on_chip & bit) {
        resident_in += t.words;
        s.onchip_read_bytes += t.words * acc.word_bytes();
      } else {
        in += t.words;
        if (r.in_keep & bit) resident_in += t.words;
      }
    }
    for (int i = 0; i < kMaxOpOutputs; ++i) {
      const TensorUse& t = op.outputs[static_cast<std::size_t>(i)];
      if (t.words == 0) continue;
      listed = true;
      const auto bit = static_cast<std::uint8_t>(1u << i);
      if (r.out_keep & bit) resident_out += t.words;
      if (r.out_drop & bit)
        s.skipped_write_bytes += t.words * acc.word_bytes();
      else
        out += t.words;
    }
    if (!listed) in = e.elements * e.reads, out = e.elements * e.writes;
    if (!e.dram) in = out = 0;
    s.dram_read_bytes[kIfmap] = in * acc.word_bytes();
    s.dram_write_bytes[kOfmap] = out * acc.word_bytes();
    s.buffer.writes[kIfmap] += in;
    s.buffer.reads[kOfmap] += out;

    // Chunks of whole lane groups, as large as the buffer allows next to what is resident.
    const BufferCapacity cap = BufferCapacity::of(acc);
    const std::int64_t copies = cap.double_buffer ? 2 : 1;
    std::int64_t chunk = e.elements;
    auto limit = [&](std::int64_t free_words, int streams, const char* what, int operand) {
      if (streams == 0) return;
      if (free_words < streams * copies)
        throw UserError(op.describe() + ": " + cap.level_name(operand, acc) + " of '" + acc.name +
                        "' has no room for the " + what + " of the vector unit next to the " +
                        std::to_string(resident_in + resident_out) + " resident words");
      chunk = std::min(chunk, free_words / (streams * copies));
    };
    if (cap.shared) {
      limit(cap.total_words - resident_in - resident_out, e.reads + e.writes, "operands", kIfmap);
    } else {
      limit(cap.partition_words[kIfmap] - resident_in, e.reads, "inputs", kIfmap);
      limit(cap.partition_words[kOfmap] - resident_out, e.writes, "outputs", kOfmap);
    }
    if (chunk >= acc.vector_lanes) chunk -= chunk % acc.vector_lanes;
    chunk = std::max<std::int64_t>(1, chunk);

    const std::int64_t elements = e.elements, wb = acc.word_bytes();
    std::int64_t done = 0, step_elements = 0;
    // Chunk i moves its share of the words: floor(W (i+1) c / E) - floor(W i c / E). The
    // products are taken in 128 bits: W and the element index each reach 2^32 and more on the
    // largest legal ops, while the quotients (at most W) fit.
    auto share = [&](std::int64_t words, std::int64_t from, std::int64_t to) {
      using Wide = __int128;
      return elements == 0 ? std::int64_t{0}
                           : static_cast<std::int64_t>(Wide{words} * to / elements -
                                                       Wide{words} * from / elements);
    };
    auto next = [&](Transfers& t) {
      if (done >= elements) return false;
      step_elements = std::min(chunk, elements - done);
      t = {share(in, done, done + step_elements) * wb, share(out, done, done + step_elements) * wb,
           true};
      done += step_elements;
      return true;
    };
    // run_double_buffered computes a chunk after asking for the next; track the one it runs.
    std::int64_t run_from = 0;
    auto compute = [&]() {
      const std::int64_t n = std::min(chunk, elements - run_from);
      ctx.busy((n * e.flops + acc.vector_lanes - 1) / acc.vector_lanes);
      run_from += n;
    };
    // Timed alone, chunks that move and compute alike from the same clock state take the same
    // cycles (as run_mapping's repeated iterations). Every full chunk moves the same words when
    // each operand's words are a whole multiple of the elements. When the next step is due,
    // chunk c has run and chunk c + 1 is in flight; if both it and the one before were full
    // and the pending transfers stand at the same distances from the clock as one chunk
    // earlier, each later step repeats that one as long as the chunk it fetches is full: the
    // clock jumps to where the last full chunk is in flight, one period per chunk skipped.
    const bool alike = ctx.times_alone() && elements > 0 && in % elements == 0 &&
                       out % elements == 0 && elements / chunk > 2;
    struct Mark {
      bool set = false;
      std::int64_t now = 0;
      Pending pending{};
    } mark;
    auto skip = [&](ScheduleState& st) {
      if (!alike) return false;
      const std::int64_t now = ctx.now();
      const Pending pending = pending_ahead(ctx, st);
      const bool full = step_elements == chunk;
      if (full && mark.set && mark.pending == pending) {
        const std::int64_t skipped = elements / chunk - 1 - run_from / chunk;
        if (skipped > 0 && jump_periods(ctx, st, pending, skipped, now - mark.now)) {
          done += skipped * chunk;
          run_from += skipped * chunk;
          mark.set = false;
          return false;
        }
      }
      mark = {full, now, pending};
      return false;
    };
    run_double_buffered(
        ctx, cap.double_buffer, cap.double_buffer ? 2 : 1, next, compute, [] { return false; },
        skip);
    s.mapping.emplace_back("chunk", chunk);
    return s;
  }
};

}  // namespace

SearchResult tiled_mapping(const Op& op, const AcceleratorSpec& acc, const Dataflow& df) {
  const NestProblem p = make_problem(op, df.gemm_based());
  MappingConstraints pinned;
  pinned_tiles(p, acc, pinned);
  const OperandResidency res = OperandResidency::of(op);
  TiledPricer pricer(p, res, acc, df);
  // The mapping chosen last for this op on this dataflow and array (another buffer size,
  // mostly) starts the search: it saves a sweep over buffer sizes a fifth of its searching.
  // Failing that, the one chosen for the same layer's pass at another batch size (the
  // epoch's partial step, the test passes), carried over to this op's extents.
  MappingHints& hints = thread_mapping_hints();
  const std::string key = MappingHints::key_of(p, res, acc, df);
  const std::string layer_key = MappingHints::layer_key_of(p, res, acc, df);
  const std::array<std::int64_t, kNumDims> granules = df.tile_granules(p, acc);
  const BufferMapping* hint = hints.find(key);
  BufferMapping carried;
  if (!hint && hints.find_for_layer(layer_key, p.extent, granules, carried)) hint = &carried;
  SearchResult r = search_mapping(p, res, BufferCapacity::of(acc), acc, granules, pinned,
                                  acc.mapping.objective, pricer, hint);
  hints.remember(key, layer_key, p.extent, r.mapping);
  return r;
}

MappingCheck check_mapping(const Op& op, const AcceleratorSpec& acc, const Dataflow& df,
                           const BufferMapping& m) {
  const NestProblem p = make_problem(op, df.gemm_based());
  const OperandResidency res = OperandResidency::of(op);
  TiledPricer pricer(p, res, acc, df);
  MappingCheck r;
  r.cost = analyze_mapping(p, m, res, BufferCapacity::of(acc));
  r.score = pricer.score(m, r.cost, std::numeric_limits<std::int64_t>::max(), true);
  SearchResult sr;
  sr.mapping = m;
  sr.cost = r.cost;
  FastContext ctx(acc, &df);
  r.walked = run_mapping(p, sr, res, acc, df, ctx, false);
  r.walked_cycles = std::max(ctx.now(), buffer_port_cycles(r.walked, acc));
  // The same arithmetic through a context that does not time alone: every tile stepped.
  FastContext inner(acc, &df);
  SteppedContext every(inner);
  r.stepped = run_mapping(p, sr, res, acc, df, every, false);
  r.stepped_cycles = std::max(every.now(), buffer_port_cycles(r.stepped, acc));
  r.cycles_bound = pricer.cycles_bound(schedule_facts(p, m, r.cost, res, pricer));
  r.energy_bound = pricer.energy_bound(r.cost);
  return r;
}

const MemoryModel& tiled_memory() {
  static const TiledMemory instance;
  return instance;
}

}  // namespace trainsim
