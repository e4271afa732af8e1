#include "sim/accel/tiled_memory.h"

#include <algorithm>
#include <deque>
#include <functional>

#include "mapping/tile_values.h"
#include "mapping/tile_walk.h"
#include "sim/accel/fast_context.h"
#include "sim/accel/vector_unit.h"
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
// `compute` runs step t (after next() has produced it). Returns nothing: the context's clock
// is the result.
void run_double_buffered(ExecutionContext& ctx, bool double_buffer, int output_slots,
                         const std::function<bool(Transfers&)>& next,
                         const std::function<void()>& compute_current) {
  Transfers cur, nxt;
  if (!next(cur)) return;
  std::int64_t fetched = ctx.transfer(cur.fetch_bytes);
  std::int64_t out_prev = 0, out_prev2 = 0, written = 0;
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
    if (!double_buffer) next_fetched = ctx.transfer(nxt.fetch_bytes);
    fetched = next_fetched;
    cur = nxt;
  }
  ctx.wait_until(written);
}

// The energy of a candidate mapping, for ties in DRAM traffic: its tiles on the array
// (closed form) and the memory level's DMA fills, drains and accumulations, priced with
// Eyeriss' normalized access costs (MAC 1, RF 1, NoC 2, buffer 6, DRAM 200 per word), plus a
// millionth per cycle of max(compute, DRAM time) to prefer the faster of equals. A fixed
// table, not the accelerator's: the mapping, hence every count, must not depend on the
// table a run is priced with, so that any run can be re-priced with another.
MappingEnergy mapping_energy(const NestProblem& p, const AcceleratorSpec& acc, const Dataflow& df,
                             FastContext& memo) {
  return [&p, &acc, &memo](const BufferMapping& m, const MappingCost& c) {
    OpStats s;
    for (const auto& [box, count] : tile_classes(p, m))
      s += memo.compute(tile_op(p, box), &p, &box).repeated(count);
    double buffer = static_cast<double>(s.buffer.total_reads() + s.buffer.total_writes());
    buffer += static_cast<double>(c.dram_words() + c.accumulate_words);  // fills, drains, sums
    const std::int64_t dram_cycles =
        dram_occupancy(c.dram_words() * acc.word_bytes(), acc) + acc.dram.latency_cycles;
    return static_cast<double>(s.macs) +
           static_cast<double>(s.rf.total_reads() + s.rf.total_writes()) +
           2.0 * static_cast<double>(s.noc.total_reads() + s.noc.total_writes()) + 6.0 * buffer +
           200.0 * static_cast<double>(c.dram_words()) +
           1e-6 * static_cast<double>(std::max(s.compute_cycles, dram_cycles));
  };
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

// The memory level's own counts of a mapping: DRAM per operand, DMA fills and drains, the
// accumulation reads, and what residency kept on chip.
void add_memory_counts(const NestProblem& p, const SearchResult& sr, const OperandResidency& res,
                       const AcceleratorSpec& acc, OpStats& s) {
  const std::int64_t wb = acc.word_bytes();
  const MappingCost& c = sr.cost;
  for (int o = 0; o < kNumOperands; ++o) {
    s.dram_read_bytes[o] = static_cast<Count>(c.dram_read_words[o] * wb);
    s.buffer.writes[o] += static_cast<Count>(c.dram_read_words[o]);
  }
  s.dram_write_bytes[kOfmap] = static_cast<Count>(c.dram_write_words[kOfmap] * wb);
  s.buffer.reads[kOfmap] += static_cast<Count>(c.dram_write_words[kOfmap] + c.accumulate_words);
  const auto total = p.total_words();
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
    const OpStats& one = memo.compute(tile_op(p, box), &p, &box);
    if (s.mapping.empty()) s.mapping = one.mapping;
    OpStats many = one.repeated(count);
    many.mapping.clear();
    s += many;
  }
  add_memory_counts(p, sr, res, acc, s);
  const std::int64_t done = ctx.transfer(static_cast<std::int64_t>(s.dram_bytes()));
  ctx.busy(s.compute_cycles);
  ctx.wait_until(done);
  return s;
}

class TiledMemory final : public MemoryModel {
 public:
  std::string name() const override { return "tiled"; }
  std::string description() const override {
    return "buffer-level loop nest per op chosen for the least DRAM traffic, double-buffered "
           "DMA, tensors kept on chip between ops";
  }
  bool plans_residency() const override { return true; }

  OpStats run(const Op& op, const AcceleratorSpec& acc, const Dataflow& df,
              ExecutionContext& ctx) const override {
    const NestProblem p = make_problem(op, df.gemm_based());
    const OperandResidency res = OperandResidency::of(op);
    const BufferCapacity cap = BufferCapacity::of(acc);
    const SearchResult sr = tiled_mapping(op, acc, df);
    const std::int64_t wb = acc.word_bytes();

    OpStats s;
    s.pes = acc.pes();
    if (sr.cost.tiles > kMaxWalkedTiles) return run_bounded(p, sr, res, acc, df, ctx);
    TileWalk walk(p, sr.mapping, res);
    // The schedule asks for tile t+1's transfers before it runs tile t: at most two steps
    // are in flight.
    std::deque<TileStep> steps;
    auto next = [&](Transfers& t) {
      TileStep step;
      if (!walk.next(step)) return false;
      std::int64_t words = 0;
      for (int o = 0; o < kNumOperands; ++o) words += step.fetch_words[o];
      t = {words * wb, step.write_words * wb, step.new_output};
      steps.push_back(step);
      return true;
    };
    auto compute = [&]() {
      const TileStep step = steps.front();
      steps.pop_front();
      const OpStats& t = ctx.compute(tile_op(p, step.box), &p, &step.box);
      if (s.mapping.empty()) s.mapping = t.mapping;
      s.macs += t.macs;
      s.compute_cycles += t.compute_cycles;
      s.rf += t.rf;
      s.noc += t.noc;
      s.buffer += t.buffer;
    };
    const int output_slots = res.kind[kOfmap] == OperandResidency::kKeep ? 0
                             : sr.cost.output_double_buffered            ? 2
                                                                         : 1;
    run_double_buffered(ctx, cap.double_buffer, output_slots, next, compute);

    // The walk moved exactly what the closed form counts (tested), which the memory level's
    // counts come from.
    add_memory_counts(p, sr, res, acc, s);
    return s;
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
    // Chunk i moves its share of the words: floor(W (i+1) c / E) - floor(W i c / E).
    auto share = [&](std::int64_t words, std::int64_t from, std::int64_t to) {
      return elements == 0 ? 0 : words * to / elements - words * from / elements;
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
    run_double_buffered(ctx, cap.double_buffer, cap.double_buffer ? 2 : 1, next, compute);
    s.mapping.emplace_back("chunk", chunk);
    return s;
  }
};

}  // namespace

SearchResult tiled_mapping(const Op& op, const AcceleratorSpec& acc, const Dataflow& df) {
  const NestProblem p = make_problem(op, df.gemm_based());
  MappingConstraints pinned;
  pinned_tiles(p, acc, pinned);
  FastContext memo(acc, &df);
  const TileFilter keeps = [&](const std::array<std::int64_t, kNumDims>& tile) {
    return df.keeps_mapping(p, tile, acc);
  };
  return search_mapping(p, OperandResidency::of(op), BufferCapacity::of(acc), acc,
                        df.tile_granules(p, acc), keeps, pinned, mapping_energy(p, acc, df, memo));
}

const MemoryModel& tiled_memory() {
  static const TiledMemory instance;
  return instance;
}

}  // namespace trainsim
