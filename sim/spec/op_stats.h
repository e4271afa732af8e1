#pragma once
// What timing one op on the accelerator produces: cycles and event counts per memory level
// and operand. Counts only: energy is applied afterwards (sim/accel/energy.h). Both
// fidelities fill the same struct, and the cross-fidelity tests compare it field by field.
#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace trainsim {

/// GEMM operand names as SCALE-Sim uses them: C[M x N] (ofmap) = A[M x K] (ifmap)
/// B[K x N] (filter). For a convolution: input activations, weights, outputs / psums.
enum Operand : int { kIfmap = 0, kFilter = 1, kOfmap = 2 };
inline constexpr int kNumOperands = 3;
const char* operand_name(int operand);  ///< "ifmap", "filter", "ofmap"

/// Event counts (accesses, bytes, MACs). Unsigned 64-bit, and every sum and product of
/// counts is checked: 90 epochs of VGG-16 on ImageNet read the register files about 1.6e19
/// times, past a signed 64-bit integer (9.2e18); a count that would pass 2^64 (1.8e19) stops
/// the run with CounterOverflow instead of wrapping. Energies are summed in double.
using Count = std::uint64_t;

/// A count or cycle sum that would pass its counter's range: the configured run is larger than
/// the counters hold (VGG-19 on ImageNet for 500 epochs). The runners turn it into a one-line
/// user error naming training.epochs and how many fit (sim/train/run_limits.h); the CLI turns
/// one they do not catch into a user error too.
class CounterOverflow : public std::overflow_error {
 public:
  /// `counter`: "MACs", "RF", "cycles", ...; `limit`: "2^64" or "2^63".
  CounterOverflow(std::string counter, std::string limit);
  const std::string& counter() const { return counter_; }
  const std::string& limit() const { return limit_; }

 private:
  std::string counter_, limit_;
};

/// Throws CounterOverflow naming `what`; out of line, so the checks below stay small.
[[noreturn]] void throw_count_overflow(const char* what);
/// The same for a signed cycle count (past 2^63).
[[noreturn]] void throw_cycle_overflow();

/// a + b and a * b, or CounterOverflow naming `what`. Inline: every op's statistics are
/// summed into several totals, so these run millions of times per epoch.
inline Count checked_add(Count a, Count b, const char* what) {
  Count r = 0;
  if (__builtin_expect(__builtin_add_overflow(a, b, &r), 0)) throw_count_overflow(what);
  return r;
}
inline Count checked_mul(Count a, Count b, const char* what) {
  Count r = 0;
  if (__builtin_expect(__builtin_mul_overflow(a, b, &r), 0)) throw_count_overflow(what);
  return r;
}
/// The same for signed cycle counts.
inline std::int64_t checked_add(std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  if (__builtin_expect(__builtin_add_overflow(a, b, &r), 0)) throw_cycle_overflow();
  return r;
}
inline std::int64_t checked_mul(std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  if (__builtin_expect(__builtin_mul_overflow(a, b, &r), 0)) throw_cycle_overflow();
  return r;
}

/// Reads and writes of one memory level, in words, per operand.
struct AccessCounts {
  std::array<Count, kNumOperands> reads{}, writes{};
  Count total_reads() const;
  Count total_writes() const;
  AccessCounts& operator+=(const AccessCounts& o);
  bool operator==(const AccessCounts& o) const { return reads == o.reads && writes == o.writes; }
};

struct OpStats {
  Count macs = 0;                   ///< useful multiply-accumulates
  std::int64_t compute_cycles = 0;  ///< array busy, fill and drain included (SCALE-Sim's)
  std::int64_t stall_cycles = 0;    ///< waiting for DRAM beyond what compute hides
  Count vector_ops = 0;             ///< element-wise arithmetic in the vector unit
  std::int64_t pes = 0;             ///< PEs of the array that ran it (for utilization)
  /// Mapping summary as (name, value) pairs, e.g. ("row_folds", 3); dataflow-specific.
  std::vector<std::pair<std::string, std::int64_t>> mapping;
  AccessCounts rf;      ///< PE register files
  AccessCounts noc;     ///< words moved buffer <-> PE and PE <-> PE (per hop)
  AccessCounts buffer;  ///< global buffer (SCALE-Sim's SRAM reads / writes)
  /// Output accumulator (accelerator.accumulator): partial sums added at the array's edge
  /// instead of in the buffer. Ofmap only; zero without one.
  AccessCounts acc;
  std::array<Count, kNumOperands> dram_read_bytes{}, dram_write_bytes{};
  /// Inter-op residency (tiled memory model): bytes of inputs the op found whole in the
  /// buffer, so did not read from DRAM, and bytes of outputs it did not write back because
  /// the next op, their last reader, took them from the buffer.
  Count onchip_read_bytes = 0, skipped_write_bytes = 0;
  /// The op's compulsory DRAM traffic, whatever its mapping: every stored word of every
  /// operand read once, every output written once (mapping/bounds.h; an element-wise op's
  /// inputs and outputs). The op alone: inter-op residency can take it below this.
  Count compulsory_dram_bytes = 0;

  std::int64_t cycles() const { return checked_add(compute_cycles, stall_cycles); }
  bool operator==(const OpStats& o) const {
    return macs == o.macs && compute_cycles == o.compute_cycles && stall_cycles == o.stall_cycles &&
           vector_ops == o.vector_ops && pes == o.pes && mapping == o.mapping && rf == o.rf &&
           noc == o.noc && buffer == o.buffer && acc == o.acc &&
           dram_read_bytes == o.dram_read_bytes && dram_write_bytes == o.dram_write_bytes &&
           onchip_read_bytes == o.onchip_read_bytes &&
           skipped_write_bytes == o.skipped_write_bytes &&
           compulsory_dram_bytes == o.compulsory_dram_bytes;
  }
  /// `util`, as every report uses it: MACs over PE-cycles of the whole time the op took,
  /// DRAM stalls included.
  double utilization() const;
  /// `compute_util`: MACs over PE-cycles of the array's busy time only (SCALE-Sim's "overall
  /// utilization"; the dataflow's mapping, fill and drain).
  double compute_utilization() const;
  Count dram_bytes() const;
  /// Adds counts (cycles add: ops run one after another); leaves `pes` unchanged.
  OpStats& operator+=(const OpStats& o);
  /// The counts of `n` runs one after another (cycles and accesses times n).
  OpStats repeated(std::int64_t n) const;
  /// Adds the counts of `n` runs of `o` (as += o.repeated(n), without copying its mapping
  /// summary: the tiled model sums every tile class of every candidate this way).
  OpStats& add_repeated(const OpStats& o, std::int64_t n);
};

/// MACs over (PEs x cycles); 0 when either is 0.
double utilization_over(Count macs, std::int64_t pes, std::int64_t cycles);

/// The four figures SCALE-Sim v2 reports per layer (compute cycles, ifmap / filter SRAM
/// reads, ofmap SRAM writes), computed under its conventions by the systolic dataflows so
/// users can compare directly. They can differ from trainsim's own counters where
/// SCALE-Sim counts differently (docs/systolic_dataflows.md), e.g. OS ofmap writes.
struct ScaleSimView {
  std::int64_t compute_cycles = 0, ifmap_sram_reads = 0, filter_sram_reads = 0,
               ofmap_sram_writes = 0;
  /// Mapped PEs over all PEs, averaged over the folds (SCALE-Sim's "Mapping Efficiency %").
  double mapping_efficiency_pct = 0;
};

}  // namespace trainsim
