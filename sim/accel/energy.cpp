#include "sim/accel/energy.h"

#include "sim/accel/op_totals.h"

#include "sim/core/error.h"

namespace trainsim {

EnergyBreakdown& EnergyBreakdown::operator+=(const EnergyBreakdown& o) {
  mac += o.mac;
  rf += o.rf;
  noc += o.noc;
  buffer += o.buffer;
  accumulator += o.accumulator;
  dram += o.dram;
  vector += o.vector;
  leakage += o.leakage;
  return *this;
}

double access_energy(const EnergyCost& c, int word_bits) {
  return c.pj * static_cast<double>(word_bits) / static_cast<double>(c.per_bits);
}

double mac_energy(const EnergyTable& t, int word_bits) {
  for (const auto& [bits, pj] : t.mac)
    if (bits >= word_bits) return pj;
  throw UserError("energy table '" + t.name + "' has no MAC energy for " +
                  std::to_string(word_bits) + "-bit words");
}

double buffer_energy(const std::vector<std::pair<double, EnergyCost>>& table, double kib,
                     int word_bits) {
  if (table.empty()) return 0;
  if (kib <= table.front().first) return access_energy(table.front().second, word_bits);
  if (kib >= table.back().first) return access_energy(table.back().second, word_bits);
  for (std::size_t i = 1; i < table.size(); ++i) {
    if (kib > table[i].first) continue;
    const double lo = access_energy(table[i - 1].second, word_bits);
    const double hi = access_energy(table[i].second, word_bits);
    const double t = (kib - table[i - 1].first) / (table[i].first - table[i - 1].first);
    return lo + t * (hi - lo);
  }
  return access_energy(table.back().second, word_bits);
}

EnergyBreakdown price(const OpStats& s, const AcceleratorSpec& acc) {
  const EnergyTable& t = acc.energy;
  const int bits = acc.word_bits;
  EnergyBreakdown e;
  e.mac = static_cast<double>(s.macs) * mac_energy(t, bits);
  // Summed per operand in double: the counts' own totals can pass 2^64 in a long run.
  auto sum = [](const std::array<Count, kNumOperands>& c) {
    return static_cast<double>(c[0]) + static_cast<double>(c[1]) + static_cast<double>(c[2]);
  };
  e.rf = sum(s.rf.reads) * access_energy(t.rf_read, bits) +
         sum(s.rf.writes) * access_energy(t.rf_write, bits);
  e.noc = (sum(s.noc.reads) + sum(s.noc.writes)) * access_energy(t.noc, bits);
  for (int o = 0; o < kNumOperands; ++o) {
    const double kib = acc.buffer_kib_of(o);
    e.buffer += static_cast<double>(s.buffer.reads[o]) * buffer_energy(t.buffer_read, kib, bits) +
                static_cast<double>(s.buffer.writes[o]) * buffer_energy(t.buffer_write, kib, bits);
    e.dram += static_cast<double>(s.dram_read_bytes[o]) * 8.0 * access_energy(t.dram_read, 1) +
              static_cast<double>(s.dram_write_bytes[o]) * 8.0 * access_energy(t.dram_write, 1);
  }
  if (acc.accumulator.words > 0) {
    // An SRAM of its own size and word width, priced from the buffer's size-scaled table.
    const double kib = acc.accumulator_kib();
    const int abits = acc.accumulator_bits();
    e.accumulator = sum(s.acc.reads) * buffer_energy(t.buffer_read, kib, abits) +
                    sum(s.acc.writes) * buffer_energy(t.buffer_write, kib, abits);
  }
  e.vector = static_cast<double>(s.vector_ops) * t.vector_op;
  e.leakage = static_cast<double>(s.cycles()) / acc.clock_ghz *
              (static_cast<double>(acc.pes()) * t.leakage_per_pe_ns +
               (acc.buffer_kib() + acc.accumulator_kib()) * t.leakage_per_kib_ns);
  return e;
}

void price_totals(OpTotals& t, const AcceleratorSpec& acc) {
  t.energy = price(t.stats, acc);
}

OpTotals priced_op(const OpStats& s, const AcceleratorSpec& acc) {
  OpTotals one;
  one.add(s, s.pes);
  price_totals(one, acc);
  return one;
}

}  // namespace trainsim
