#pragma once
// Field-by-field comparison of accelerator specs and energy tables (exact: doubles must
// round-trip through the resolved YAML), for the config round-trip tests.
#include <catch2/catch.hpp>

#include "sim/spec/accel_spec.h"

namespace trainsim::test {

inline void check_same_energy(const EnergyTable& a, const EnergyTable& b) {
  CHECK(a.name == b.name);
  CHECK(a.unit == b.unit);
  CHECK(a.mac == b.mac);
  auto same = [](const EnergyCost& x, const EnergyCost& y) {
    return x.pj == y.pj && x.per_bits == y.per_bits;  // exact: doubles must round-trip
  };
  CHECK(same(a.rf_read, b.rf_read));
  CHECK(same(a.rf_write, b.rf_write));
  CHECK(same(a.noc, b.noc));
  auto same_table = [&](const std::vector<std::pair<double, EnergyCost>>& x,
                        const std::vector<std::pair<double, EnergyCost>>& y) {
    if (x.size() != y.size()) return false;
    for (std::size_t i = 0; i < x.size(); ++i) {
      if (x[i].first != y[i].first || !same(x[i].second, y[i].second)) return false;
    }
    return true;
  };
  CHECK(same_table(a.buffer_read, b.buffer_read));
  CHECK(same_table(a.buffer_write, b.buffer_write));
  CHECK(same(a.dram_read, b.dram_read));
  CHECK(same(a.dram_write, b.dram_write));
  CHECK(a.vector_op == b.vector_op);
  CHECK(a.leakage_per_pe_ns == b.leakage_per_pe_ns);
  CHECK(a.leakage_per_kib_ns == b.leakage_per_kib_ns);
}

inline void check_same_accelerator(const AcceleratorSpec& a, const AcceleratorSpec& b) {
  CHECK(a.name == b.name);
  CHECK(a.description == b.description);
  CHECK(a.rows == b.rows);
  CHECK(a.cols == b.cols);
  CHECK(a.clock_ghz == b.clock_ghz);
  CHECK(a.word_bits == b.word_bits);
  CHECK(a.rf.input_words == b.rf.input_words);
  CHECK(a.rf.weight_words == b.rf.weight_words);
  CHECK(a.rf.psum_words == b.rf.psum_words);
  CHECK(a.rf.keep_psums == b.rf.keep_psums);
  CHECK(a.buffer.ifmap_kib == b.buffer.ifmap_kib);
  CHECK(a.buffer.filter_kib == b.buffer.filter_kib);
  CHECK(a.buffer.ofmap_kib == b.buffer.ofmap_kib);
  CHECK(a.buffer.banks == b.buffer.banks);
  CHECK(a.buffer.words_per_cycle == b.buffer.words_per_cycle);
  CHECK(a.buffer.port_words_per_cycle == b.buffer.port_words_per_cycle);
  CHECK(a.accumulator.words == b.accumulator.words);
  CHECK(a.accumulator.bits == b.accumulator.bits);
  CHECK(a.noc_words_per_cycle == b.noc_words_per_cycle);
  CHECK(a.dram.bandwidth_gbps == b.dram.bandwidth_gbps);
  CHECK(a.dram.latency_cycles == b.dram.latency_cycles);
  CHECK(a.vector_lanes == b.vector_lanes);
  CHECK(a.dataflow == b.dataflow);
  CHECK(a.mapping.tile == b.mapping.tile);
  CHECK(a.mapping.stationary == b.mapping.stationary);
  CHECK(a.mapping.objective == b.mapping.objective);
  check_same_energy(a.energy, b.energy);
}

}  // namespace trainsim::test
