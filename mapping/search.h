#pragma once
// The buffer mapping of an op: the candidate that minimises the accelerator's
// `mapping.objective` among those that fit the buffer:
//   time    the op's cycles as the memory model runs it (double-buffered DMA over the tile
//           walk, compute and transfers overlapped); mappings within kTimeTolerance (0.5%) of
//           the fastest count as ties, broken by DRAM traffic, then energy, then cycles;
//   energy  the energy of a fixed table (the caller's); ties: DRAM traffic, then cycles;
//   edp     energy x cycles; ties: DRAM traffic.
// Why a tolerance: ops run one after another, each exposing its first fetch, its last
// write-back and the drains of output tiles that accumulate in place, so the strictly
// fastest mapping is often one that moves many times the traffic to hide a few hundred cycles
// of them (AlexNet's CONV3 on eyeriss_like: partial sums spilled to DRAM 32 times, 7x the
// traffic, for 0.2% of the time). Within half a percent, traffic decides.
//
// Search space. Tile sizes per dimension are the smallest tile of each trip count among
// 1-16, then trip counts growing by ~1.25x up to one element per tile; a dataflow asks for
// multiples of the groups it works on at once (array rows or columns, register-file
// interleaves) on some dimensions, and accepts only tiles that keep its spatial mapping
// (whole folds of the array), so tiling keeps its mapping of each tile as the whole op's.
// The smallest tile of all is always a candidate, so the candidates never depend on the
// buffer's size: a larger buffer only adds candidates. Within a block the dimensions shrink in
// a fixed order, the one that adds no halo first: batch, then output rows, then columns;
// channels, then kernel rows, then columns. Every pair of block-W (N, P, Q) and block-O (C, R,
// S) tiles, every K tile and all six block orders are candidates.
//
// The search is exact over these candidates (branch and bound): the closed form (traffic,
// occupancy) and the array's compute cycles summed over each candidate's tiles give every
// candidate a lower bound on its cycles and energy (MappingPricer::cycles_bound,
// energy_bound); candidates are priced in full (MappingPricer::score: the tile walk, as the
// memory model runs it) in increasing order of their bound until the next bound exceeds the
// best price found (time: then, among those whose bound is within the tolerance, in order of
// traffic until one is fast enough). So the fastest time (SearchResult::fastest_cycles), the
// least energy and the least energy-delay product are exact minima over the candidates, the
// chosen mapping's score is exactly what the memory model then reports, and a larger buffer
// (more candidates) never gives a worse minimum. A cap on full pricings (kMaxScored) only
// binds when hundreds of candidates have bounds within the best price; then the best priced
// so far is taken (SearchResult::exhausted is false).
#include <array>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <utility>
#include <vector>

#include "mapping/buffer_mapping.h"

namespace trainsim {

/// Parts of the mapping a user pins (`trainsim layer --tile`, `--stationary`).
struct MappingConstraints {
  std::array<std::int64_t, kNumDims> tile{};  ///< 0: free
  int stationary = -1;                        ///< operand whose block is innermost; -1: free
  bool empty() const;
};

/// A mapping as the memory model runs it.
struct MappingScore {
  std::int64_t cycles = 0;      ///< the op's cycles (what the fast fidelity reports)
  std::int64_t dram_words = 0;  ///< DRAM traffic
  double energy = 0;            ///< priced with the search's fixed table
  /// False: pricing stopped once the op could not end by its deadline; `cycles` is then only
  /// a lower bound (deadline + 1).
  bool exact = true;
  /// The memory model's schedule alone (`cycles` may be more: a limited buffer port); 0 when
  /// not priced.
  std::int64_t schedule_cycles = 0;
  /// False: only the energy and the traffic were priced (cycles 0).
  bool timed = true;
};

/// What the closed form and the compute cycles say about a candidate's schedule, for a lower
/// bound on its cycles (MappingPricer::cycles_bound).
struct ScheduleFacts {
  std::int64_t tiles = 0;
  std::int64_t compute_cycles = 0;     ///< summed over the tiles (or a lower bound of the sum)
  std::int64_t min_tile_cycles = 0;    ///< the cheapest tile's (or a lower bound)
  std::int64_t first_fetch_words = 0;  ///< before the first tile can start
  std::int64_t last_write_words = 0;   ///< after the last tile has run
  std::int64_t read_words = 0;         ///< all DRAM reads (partial sums read back included)
  std::int64_t dram_words = 0;         ///< reads and writes
  /// Steps after the first that certainly fetch something (an operand tile of at least one
  /// stored word changes).
  std::int64_t fetching_steps = 0;
  /// The most expensive tile's compute cycles (or more); unknown: the largest int64.
  std::int64_t max_tile_cycles = std::numeric_limits<std::int64_t>::max();
  /// Per loop position (outermost first): how many steps advance it, and the words each of
  /// them certainly fetches (the tiles that change, at their smallest).
  struct Steps {
    std::int64_t count = 0, words = 0;
  };
  std::array<Steps, kNumDims> steps{};
};

/// Each distinct tile of one dimension: its origin, its extent, and how many tiles share what
/// the array's cost and the words of the tiles depend on (the extent, and for a
/// stride-dilated kernel the stored positions).
struct TileSpan {
  std::int64_t origin, extent, count;
};

/// The memory model's side of the search: what a tile costs on the array, a candidate's full
/// price, and lower bounds on it.
class MappingPricer {
 public:
  virtual ~MappingPricer() = default;
  /// Compute cycles of the array for one tile of the problem.
  virtual std::int64_t tile_cycles(const TileBox& box) = 0;
  /// The candidate run as the memory model runs it; the pricer may stop once it is sure the
  /// op takes more than `deadline` cycles (MappingScore::exact), and need not time it at all
  /// without `timed` (MappingScore::timed: energy and traffic only, which need no schedule).
  virtual MappingScore score(const BufferMapping& m, const MappingCost& c, std::int64_t deadline,
                             bool timed) = 0;
  /// A lower bound on score().cycles. With only the traffic known (tiles, read_words,
  /// dram_words; the rest 0 and max_tile_cycles unknown) it must not fall as they grow: the
  /// search stops shrinking a K tile once this rules one out. Nor may it fall, with the rest
  /// the same, as read_words, dram_words or the fetching steps grow: the search rules out
  /// every block order at a K tile by its bound with no traffic.
  virtual std::int64_t cycles_bound(const ScheduleFacts& f) const = 0;
  /// A lower bound on score().energy; it must not fall as the traffic (dram_words) grows
  /// with the rest of the cost the same (the search relies on it as on cycles_bound's).
  virtual double energy_bound(const MappingCost& c) const = 0;
  /// A factor of a lower bound on a candidate's compute cycles summed over its tiles: the
  /// bound is the product of the three blocks' factors (TileBlock), each from the spans of
  /// that block's dimensions alone (pixels: N, P, Q; reduction: C, R, S; filters: K, the
  /// rest nullptr) or, with `spans` nullptr, the least over any tiling of the block. 0 (the
  /// default): no bound. No candidate's cycles are below its compute.
  virtual double compute_floor_factor(TileBlock block,
                                      const std::array<const std::vector<TileSpan>*, 3>* spans) {
    return 0;
  }
};

/// The `time` objective's tolerance: mappings within this fraction of the fastest count as
/// equally fast (mapping/search.h).
inline constexpr double kTimeTolerance = 0.005;

struct SearchResult {
  BufferMapping mapping;
  MappingCost cost;
  MappingScore score;
  /// The fastest candidate's cycles (the time objective chose within kTimeTolerance of it;
  /// the other objectives: the chosen mapping's).
  std::int64_t fastest_cycles = 0;
  std::int64_t candidates = 0;  ///< candidates that fit the buffer
  std::int64_t scored = 0;      ///< priced in full
  bool exhausted = true;        ///< false: the cap on full pricings stopped the search
};

/// The best mapping for `objective`, or UserError naming the op and the buffer level when
/// even the smallest tiles do not fit (or no mapping satisfies the constraints). `granule[d]`:
/// tiles of d smaller than its extent are multiples of it (Dataflow::tile_granules).
/// `hint`: a mapping found for the same op on other hardware (another buffer size), priced
/// first when it is one of this search's candidates, so that the cut-off on the rest starts
/// low. Like the other shortcuts it changes how much is analysed, never the mapping chosen;
/// any mapping may be passed.
SearchResult search_mapping(const NestProblem& p, const OperandResidency& res,
                            const BufferCapacity& cap, const AcceleratorSpec& acc,
                            const std::array<std::int64_t, kNumDims>& granule,
                            const MappingConstraints& pinned, MappingObjective objective,
                            MappingPricer& pricer, const BufferMapping* hint = nullptr);

/// Whether search_mapping takes its shortcuts (default on): a candidate priced before its
/// first sweep ends for an early cut-off, the first sweep's traffic reused by the second, and
/// compute floors ruling out at once every candidate of a K tile, of a (W, O) pair or of a W
/// tile (MappingPricer::compute_floor_factor). They change how many candidates are analysed,
/// never the mapping chosen (mapping/search.cpp says why); for tests, which compare the two.
void set_search_shortcuts(bool on);

/// Each tile shape of a mapping and how many tiles have it (tiles differ only in the ragged
/// last tile of a dimension, and, for a stride-dilated kernel, in its stored positions).
std::vector<std::pair<TileBox, std::int64_t>> tile_classes(const NestProblem& p,
                                                           const BufferMapping& m);

/// Candidate tile sizes of a dimension of `extent`, largest first: the smallest tile of each
/// trip count considered, rounded up to a multiple of `granule`; ends with min(extent,
/// granule).
std::vector<std::int64_t> tile_candidates(std::int64_t extent, std::int64_t granule);
/// The candidate tile of a dimension of `extent` that takes `trips` trips (tile_candidates'
/// rule: the smallest such tile, rounded up to a multiple of `granule`).
std::int64_t tile_for_trips(std::int64_t extent, std::int64_t trips, std::int64_t granule);

/// Words fetched before a mapping's first tile can run and written back after its last.
std::pair<std::int64_t, std::int64_t> first_fetch_and_last_write(const NestProblem& p,
                                                                 const BufferMapping& m,
                                                                 const MappingCost& c,
                                                                 const OperandResidency& res);

/// The distinct tiles (TileSpan) of dimension `dim` cut into tiles of `tile`.
std::vector<TileSpan> tile_spans(const NestProblem& p, int dim, std::int64_t tile);

/// The distinct tiles of a block (TileBlock) from the spans of its dimensions (pixels: N, P,
/// Q; reduction: C, R, S; filters: K and two nullptr): every combination of them, into
/// `tiles` (cleared first; the search asks millions of times, so the caller keeps the vector).
void block_tiles(const NestProblem& p, TileBlock block,
                 const std::array<const std::vector<TileSpan>*, 3>& spans,
                 std::vector<BlockTile>& tiles);

/// The schedule facts of a mapping (exposed for tests: its bound is checked against the
/// walk).
ScheduleFacts schedule_facts(const NestProblem& p, const BufferMapping& m, const MappingCost& c,
                             const OperandResidency& res, MappingPricer& pricer);

}  // namespace trainsim
