#pragma once
// The row-stationary (Eyeriss) mapping of one op, shared by both fidelities so that the
// closed form (rs.cpp) and the cycle engine (rs_engine.cpp) cannot disagree on *what* runs
// where; they only differ in *how* they count it. docs/rs_mapping.md explains the model.
//
// Vocabulary (lowered conv: N images, C channels, M filters, R x S kernel, E x F output,
// stride U, zero padding P):
//   logical set  R x E PEs for one (image, filter, channel) plane pair: PE (i, j) holds
//                filter row i, receives padded input row j*U + i, computes output row j.
//   segment      a slice of <= rows filter rows (R > rows splits the set vertically).
//   strip        a slice of <= cols output rows (E > cols folds the set horizontally).
//   row chunk    a slice of <= S' kernel columns: a filter row longer than the RFs allow
//                is convolved in pieces whose psums accumulate (in the global buffer).
//   class        one (segment, strip) pair: every set of a class has the same footprint.
//   job          one set of a class bound to (image n, filter group fg, channel group cg,
//                row chunk k); a PE of the job runs p filters x q channels interleaved
//                (RF-level reuse) over the s kernel columns of its chunk.
//   pass         up to `rep` jobs of one class placed side by side / stacked on the array
//                (Eyeriss' replication), run in lockstep until the longest one finishes.
//                A set whose job has the same inputs (or weights) as the set before it in
//                the pass takes them from that set's buffer read (multicast) rather than
//                reading them again; the job order (RsOrder) decides which operand
//                neighbouring sets share.
//   stack        (array.chain_psums) the vr sets of a pass in one column, consecutive jobs
//                from the bottom up: a set whose job has the same outputs as the set below
//                it adds that set's partial sums to its own at its bottom row, and only the
//                top set of such a chain writes back; every set's rows start (position in
//                the stack) h cycles later than the stack's bottom set's.
//   resident     (psum_resident) a job runs every channel group of its (image, filter
//                group) one after another and keeps its p x F partial sums in the psum RF
//                meanwhile, draining them once: as a job of q = C, which it equals in every
//                count and cycle (the weights and the input window are reloaded per group
//                either way). With rf.keep_psums, wherever the psum RF holds them and there
//                is more than one channel group.
#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "mapping/problem.h"
#include "sim/spec/accel_spec.h"
#include "sim/workload/op.h"

namespace trainsim {

/// Jobs of a class that share one (p, q, s): full or ragged filter / channel groups, full
/// or ragged row chunks. No default values: rs_categories writes every field of the ones it
/// makes into an array of eight, once for every tile the mapping search prices, and zeroing
/// the array was a third of that cost.
struct RsCategory {
  std::int64_t p, q;      ///< filters and channels this job's PEs interleave
  std::int64_t s;         ///< kernel columns of its row chunks
  std::int64_t fg0, nfg;  ///< filter groups [fg0, fg0 + nfg)
  std::int64_t cg0, ncg;  ///< channel groups [cg0, cg0 + ncg)
  std::int64_t k0, nk;    ///< row chunks [k0, k0 + nk)
  std::int64_t count;     ///< N * nfg * ncg * nk jobs
};

/// Buffer traffic of one category's jobs in one class: multicast between neighbouring sets
/// of a pass counted once, and with chained partial sums, the write-backs of chain tops only.
struct RsCategoryReads {
  std::int64_t input_words = 0;  ///< real input words the category's sets read
  std::int64_t weight_jobs = 0;  ///< jobs that read their weights (h p q s words each)
  std::int64_t drain_jobs = 0;   ///< jobs that write their partial sums back (w F p each)
};

/// Which job index of a category varies fastest (after the channel group and row chunk,
/// for the first two): what neighbouring sets of a pass have in common.
enum class RsOrder {
  kFilters,  ///< filter groups innermost: neighbours share inputs
  kImages,   ///< images innermost: neighbours share weights
  kOutputs,  ///< channel groups, then row chunks innermost: neighbours share outputs (chains)
};

/// One (segment, strip) pair and how its sets tile the array.
struct RsClass {
  std::int64_t r0 = 0, h = 0;   ///< filter rows [r0, r0 + h)
  std::int64_t e0 = 0, w = 0;   ///< output rows [e0, e0 + w)
  std::int64_t vr = 0, vc = 0;  ///< sets stacked vertically / side by side
  std::int64_t rep() const { return vr * vc; }
};

struct RsJob {
  std::int64_t n = 0, fg = 0, cg = 0, p = 0, q = 0;
  std::int64_t k = 0;    ///< row chunk
  std::int64_t s = 0;    ///< its kernel columns
  std::int64_t off = 0;  ///< its first kernel column, k * chunk_cols
};

struct RsMapping {
  ConvShape conv;  ///< lower_to_conv(op)
  std::int64_t N = 0, C = 0, M = 0, H = 0, W = 0, R = 0, S = 0, U = 1, P = 0, E = 0, F = 0;
  std::int64_t rows = 0, cols = 0;
  std::int64_t chunk_cols = 0;  ///< S': kernel columns of a full row chunk (S if it fits)
  std::int64_t chunks = 0;      ///< row chunks per filter row, ceil(S / S')
  std::int64_t p = 0, q = 0;    ///< the RF-level interleave of full groups (resident: q = C)
  /// The greedy interleave's p and q, with resident sums or not: buffer tiles come in whole
  /// groups of them.
  std::int64_t group_p = 0, group_q = 0;
  bool psum_resident = false;  ///< partial sums stay in the PEs across the channel loop
  /// The job order within a category: kOutputs where partial sums chain, else whichever of
  /// kFilters and kImages reads the buffer less (map_rs).
  RsOrder order = RsOrder::kFilters;
  /// Partial sums chain up the stacked sets (array.chain_psums, where an output has more
  /// than one channel group or row chunk).
  bool chained = false;
  /// Per row chunk: non-padding columns among those one input row loads for it.
  std::vector<std::int64_t> chunk_real_cols;
  /// Categories in execution order: longest job first, so a pass lasts as long as its first
  /// job (the closed form relies on this; the engine checks it by taking the max).
  std::vector<RsCategory> categories;
  std::int64_t jobs_per_class = 0;
  /// The jobs' partial sums go to the output accumulator rather than the buffer: there is one
  /// and it holds all N M E F outputs (jobs of other channel groups of the same outputs come
  /// in other passes; dataflows/accumulator.h).
  bool psums_in_accumulator = false;
  std::vector<RsClass> classes;  ///< segment-major, then strip

  /// Cycles of one job: weight preload (p q s, which also covers the first input window),
  /// F columns of p q s MACs, then `drain` cycles of psum drain (drain(c)). s is the job's
  /// row chunk width (S without chunking).
  std::int64_t job_cycles(std::int64_t jp, std::int64_t jq, std::int64_t js,
                          std::int64_t drain) const {
    return (F + 1) * jp * jq * js + drain;
  }
  /// Sets of class `c` stacked in a column whose partial sums chain (1 without chaining).
  std::int64_t stack(const RsClass& c) const { return chained ? c.vr : 1; }
  /// Cycles from a pass's last MAC to its last write-back: the skew of the column's stack
  /// plus the hop into the buffer (h - 1 hops up a set, and h more per set below it).
  std::int64_t drain(const RsClass& c) const { return stack(c) * c.h; }
  /// New input words per channel per output column of a chunk of s columns: min(U, s).
  std::int64_t slide(std::int64_t s) const { return std::min(U, s); }
  std::int64_t passes(const RsClass& c) const { return (jobs_per_class + c.rep() - 1) / c.rep(); }
  /// Cycles of the whole op: per class, each pass lasts as long as its first job (jobs run
  /// longest first), so a category costs (passes that start with one of its jobs) x (its
  /// job's length).
  std::int64_t compute_cycles() const;
  /// The idx-th job of any class (classes share the job order).
  RsJob job(std::int64_t idx) const;
  /// Distinct non-padding input rows one set of `c` needs (each read from the buffer once
  /// per channel and multicast along its diagonal).
  std::int64_t real_rows(const RsClass& c) const;
  /// Jobs in a row of the job order with the same inputs (weights, outputs): runs of
  /// neighbours that differ only in the filter group (the image; the channel group and row
  /// chunk), aligned from the category's first job. 1 where neighbours never share them.
  std::int64_t input_run(const RsCategory& cat) const;
  std::int64_t weight_run(const RsCategory& cat) const;
  std::int64_t output_run(const RsCategory& cat) const;
  /// Buffer traffic of category `cat` in class `c`, whose jobs start at `first` in the class's
  /// job list; `rows_read` is real_rows(c). A job reads an operand unless the job before it
  /// in the same pass has the same one (a run of equal inputs is read once per pass it
  /// spans), and drains its partial sums unless the job after it in the same stack has the
  /// same outputs (a run of equal outputs drains once per stack it spans).
  RsCategoryReads category_reads(const RsClass& c, const RsCategory& cat, std::int64_t first,
                                 std::int64_t rows_read) const;
  /// f(class, category, its buffer reads) for every class and category, in execution order.
  template <class F>
  void for_each_category(F&& f) const {
    for (const RsClass& k : classes) {
      const std::int64_t rows_read = real_rows(k);
      std::int64_t first = 0;  // the category's first job in the class's job list
      for (const RsCategory& cat : categories) {
        f(k, cat, category_reads(k, cat, first, rows_read));
        first += cat.count;
      }
    }
  }
  std::vector<std::pair<std::string, std::int64_t>> summary() const;
};

/// Builds the mapping; throws UserError if a register file cannot hold the minimum (one
/// weight, one input word, one psum: rows longer than the RFs are split into chunks) or the
/// op has no convolution to map.
RsMapping map_rs(const Op& op, const AcceleratorSpec& acc);

/// map_rs(op, acc).compute_cycles() without building the mapping's vectors (the buffer-mapping
/// search asks it for thousands of tile shapes).
std::int64_t rs_compute_cycles(const Op& op, const AcceleratorSpec& acc);

/// rs_compute_cycles of a buffer tile's op (tile_op) without building the op: the search's
/// question, asked for every distinct tile of every candidate mapping. Errors name p.op.
std::int64_t rs_tile_cycles(const NestProblem& p, const TileBox& box, const AcceleratorSpec& acc);

}  // namespace trainsim
