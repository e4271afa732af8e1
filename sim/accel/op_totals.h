#pragma once
// A sum of the ops of one kind of work on an accelerator: their counted events (OpStats), how
// many ops, the time that passed, and the energy of the counts once the device has priced
// them. The run records of every run kind are made of these.
#include <cstdint>

#include "sim/accel/energy.h"
#include "sim/spec/op_stats.h"

namespace trainsim {

/// Sum of the ops of one kind of work, and how many there were.
/// Utilization of a sum is MACs over (its PEs x the time it took: elapsed_cycles for the
/// phase and epoch sums, whose ops may run side by side; the ops' cycles otherwise).
/// `stats.cycles()` adds up the ops' cycles; when units run side by side the time that
/// passed is less: `elapsed_cycles` (kept for phase and epoch sums).
struct OpTotals {
  OpStats stats;
  /// `stats` priced by the device that ran them (price_totals(), sim/accel/energy.h), once
  /// the sum is complete: at the end of each epoch, of a run, or of a one-op query. Writers
  /// read it and never price (a sum and its energy always come from the same counts).
  EnergyBreakdown energy;
  std::int64_t ops = 0;
  std::int64_t elapsed_cycles = 0;
  std::int64_t update_cycles = 0;  ///< of the optimizer's update ops (excluded from step time)
  /// `util` of the sum (report_utilization.h's definition).
  double utilization() const {
    return utilization_over(stats.macs, stats.pes,
                            elapsed_cycles > 0 ? elapsed_cycles : stats.cycles());
  }
  void add(const OpStats& s, std::int64_t array_pes, bool update = false) {
    stats += s;
    if (update) update_cycles = checked_add(update_cycles, s.cycles());
    stats.pes = array_pes;
    ++ops;
  }
  /// Adds another sum of ops (not its elapsed cycles: side-by-side sums overlap in time);
  /// its update cycles only when `with_update`, as add() without `update` would.
  bool operator==(const OpTotals& o) const {
    return stats == o.stats && ops == o.ops && elapsed_cycles == o.elapsed_cycles &&
           update_cycles == o.update_cycles;
  }
  void merge(const OpTotals& o, std::int64_t array_pes, bool with_update) {
    stats += o.stats;
    if (with_update) update_cycles = checked_add(update_cycles, o.update_cycles);
    stats.pes = array_pes;
    ops = checked_add(ops, o.ops);
  }
};

}  // namespace trainsim
