#pragma once
// Parsed accelerator and energy-table configuration (configs/accelerators/*.yaml,
// configs/energy/*.yaml). Like every spec, immutable and fully resolved by the parser.
#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace trainsim {

/// Energy per access, applied to event counts after a run (so a run can be re-priced).
/// Every entry is the energy of one access of `per_bits` bits; an access of a word of
/// `word_bits` costs entry * word_bits / per_bits.
struct EnergyCost {
  double pj = 0;
  int per_bits = 64;
};

struct EnergyTable {
  std::string name;
  std::string source;       ///< file it was read from
  std::string unit;         ///< "pJ", or "normalized" (Eyeriss: multiples of one MAC)
  std::string description;  ///< free text (trainsim list energy)
  /// MAC energy by operand word width in bits, sorted by width; the entry for the smallest
  /// width >= the accelerator's word width is used.
  std::vector<std::pair<int, double>> mac;
  EnergyCost rf_read, rf_write;  ///< per-PE register files
  EnergyCost noc;                ///< one word moved one hop (buffer <-> PE or PE <-> PE)
  /// Global-buffer access energy by buffer size (KiB -> cost), interpolated linearly on the
  /// partition's size and clamped at the ends (CACTI-style: bigger SRAMs cost more).
  std::vector<std::pair<double, EnergyCost>> buffer_read, buffer_write;
  EnergyCost dram_read, dram_write;
  double vector_op = 0;  ///< one element-wise arithmetic op in the vector unit
  /// Static power, as energy per nanosecond (pJ/ns = mW), so it scales with the time a run
  /// takes whatever the clock: one PE, and 1 KiB of buffer.
  double leakage_per_pe_ns = 0;
  double leakage_per_kib_ns = 0;
};

/// What the buffer-mapping search minimises for each op (`mapping.objective`).
enum class MappingObjective : int {
  kTime = 0,    ///< the op's cycles; ties: DRAM traffic, then energy
  kEnergy = 1,  ///< energy (the search's fixed table); ties: DRAM traffic, then cycles
  kEdp = 2,     ///< energy x cycles; ties: DRAM traffic
};
/// "time", "energy", "edp".
inline const char* objective_name(MappingObjective o) {
  return o == MappingObjective::kTime ? "time" : o == MappingObjective::kEnergy ? "energy" : "edp";
}

struct AcceleratorSpec {
  std::string name;
  std::string source;
  std::string description;   ///< free text from the file, carried into reports
  int rows = 12, cols = 14;  ///< PE array
  /// `array.chain_psums` (row stationary): PE sets stacked in a column whose jobs have the
  /// same outputs (other channel groups or row chunks) sum their partial sums up the
  /// column, as Eyeriss does, and only the top one writes back; the column's skew then spans
  /// the stacked sets (docs/rs_mapping.md).
  bool chain_psums = false;
  double clock_ghz = 1.0;
  int word_bits = 16;
  /// Per-PE register files, in words (Eyeriss: 12 ifmap, 224 filter, 24 psum). `keep_psums`
  /// (row stationary): a PE keeps a row of partial sums for each of its filters while every
  /// channel group passes, where the psum RF holds them, instead of draining them to the
  /// buffer after each group as Eyeriss does (docs/rs_mapping.md).
  struct {
    std::int64_t input_words = 12, weight_words = 224, psum_words = 24;
    bool keep_psums = false;
  } rf;
  /// Global buffer: one SRAM shared by all operands (`shared`, of `kib`), whose split the
  /// buffer mapping decides per op, or one partition per operand like SCALE-Sim's three
  /// SRAMs.
  struct {
    bool shared = false;
    double kib = 0;                                          ///< shared: its size
    double ifmap_kib = 64, filter_kib = 64, ofmap_kib = 64;  ///< partitioned: their sizes
    /// The DMA fills a second copy of an operand's tile while the array works on the first
    /// (the tiled memory model's timing and capacity).
    bool double_buffer = true;
    int banks = 1;
    int words_per_cycle = 10;  ///< SCALE-Sim's "Bandwidth"
    /// Words per cycle the buffer's port serves to all units together; 0 = unlimited (each
    /// array gets what its dataflow needs, as SCALE-Sim assumes). When set, units that run
    /// side by side contend for it, and an op waits for its buffer traffic.
    double port_words_per_cycle = 0;
  } buffer;
  /// Output accumulator (TPU-style): an SRAM at the array's output edge where the array adds
  /// partial sums instead of the buffer, where it holds the outputs the dataflow accumulates
  /// at once (a systolic fold's, a row-stationary tile's; dataflows/accumulator.h), and keeps
  /// them between a buffer tile's reduction tiles where it holds the tile; what does not fit
  /// goes to the buffer as without one.
  /// `words` 0: none. `bits`: its word width (accumulators are wider than the operands; 0:
  /// word_bits). Its accesses are priced as an SRAM of its size (the buffer's table).
  struct {
    std::int64_t words = 0;
    int bits = 0;
  } accumulator;
  int noc_words_per_cycle = 16;
  struct {
    double bandwidth_gbps = 25.6;  ///< shared by every unit that moves data
    std::int64_t latency_cycles = 100;
  } dram;
  int vector_lanes = 16;  ///< element-wise unit (weight update, activation derivative)
  std::string dataflow;   ///< the preset's native dataflow (ws, os, is, rs)
  /// The memory model that costs the buffer and DRAM side of each op (`trainsim list
  /// memory`): the experiment's `memory:` overrides the preset's.
  std::string memory = "tiled";
  /// Constraints on the buffer mapping of every op (tiled memory model), as Timeloop's
  /// mapspace constraints: a pinned tile size per dimension (N K C P Q R S, mapping/problem.h;
  /// 0 = free; a size beyond an op's dimension means the whole dimension) and the operand
  /// kept stationary in the innermost loops (0 ifmap, 1 filter, 2 ofmap; -1 = free); and what
  /// the search minimises.
  struct {
    std::array<std::int64_t, 7> tile{};
    int stationary = -1;
    MappingObjective objective = MappingObjective::kTime;
  } mapping;
  EnergyTable energy;

  std::int64_t pes() const { return static_cast<std::int64_t>(rows) * cols; }
  double buffer_kib() const {
    return buffer.shared ? buffer.kib : buffer.ifmap_kib + buffer.filter_kib + buffer.ofmap_kib;
  }
  /// Size of the SRAM an access to `operand` goes to (per-access energy grows with it).
  double buffer_kib_of(int operand) const {
    if (buffer.shared) return buffer.kib;
    return operand == 0 ? buffer.ifmap_kib : operand == 1 ? buffer.filter_kib : buffer.ofmap_kib;
  }
  int accumulator_bits() const { return accumulator.bits > 0 ? accumulator.bits : word_bits; }
  double accumulator_kib() const {
    return static_cast<double>(accumulator.words) * accumulator_bits() / 8.0 / 1024.0;
  }
  /// DRAM bytes per accelerator cycle.
  double dram_bytes_per_cycle() const { return dram.bandwidth_gbps / clock_ghz; }
  std::int64_t word_bytes() const { return (word_bits + 7) / 8; }
};

}  // namespace trainsim
