#pragma once
// Energy is applied to event counts after the fact, from the accelerator's energy table,
// so one run can be re-priced with another table (price(stats, acc_with_other_table)).
#include <array>
#include <string>

#include "sim/spec/accel_spec.h"
#include "sim/spec/op_stats.h"

namespace trainsim {

/// Energy by component, in the table's unit (pJ, or MAC-normalized).
struct EnergyBreakdown {
  double mac = 0, rf = 0, noc = 0, buffer = 0, accumulator = 0, dram = 0, vector = 0, leakage = 0;
  double total() const { return mac + rf + noc + buffer + accumulator + dram + vector + leakage; }
  /// Memory-access energy (on-chip SRAMs and DRAM): what ADA-GP's Figure 21 compares (Janfaza et
  /// al., MICRO '23). The accumulator is counted with the buffer, whose partial sums it takes.
  double memory() const { return buffer + accumulator + dram; }
  EnergyBreakdown& operator+=(const EnergyBreakdown& o);
};

/// The energy of counts `s` on accelerator `acc`. Called by the accelerator's own code only:
/// when a sum of ops is complete (price_totals) and when a device model costs one op;
/// everything downstream reads the priced sums.
EnergyBreakdown price(const OpStats& s, const AcceleratorSpec& acc);

struct OpTotals;
/// Sets `t.energy` from `t.stats` on `acc`: the one place a sum of ops gets its energy.
void price_totals(OpTotals& t, const AcceleratorSpec& acc);
/// The whole record of a one-op query (`trainsim layer`, the Python module's layer()): `s` on
/// `pes` PEs, priced.
OpTotals priced_op(const OpStats& s, const AcceleratorSpec& acc);

/// Energy of one access of a `word_bits` word given a cost per `per_bits` bits.
double access_energy(const EnergyCost& c, int word_bits);
/// MAC energy for `word_bits` operands (entry for the smallest width >= word_bits).
double mac_energy(const EnergyTable& t, int word_bits);
/// Buffer access energy for a partition of `kib`, interpolated in the size table.
double buffer_energy(const std::vector<std::pair<double, EnergyCost>>& table, double kib,
                     int word_bits);

}  // namespace trainsim
