#include "sim/spec/op_stats.h"

#include <stdexcept>
#include <string>
#include <utility>

namespace trainsim {

const char* operand_name(int operand) {
  switch (operand) {
    case kIfmap:
      return "ifmap";
    case kFilter:
      return "filter";
    case kOfmap:
      return "ofmap";
  }
  return "?";
}

CounterOverflow::CounterOverflow(std::string counter, std::string limit)
    : std::overflow_error(counter + " counter overflow (past " + limit + ")"),
      counter_(std::move(counter)),
      limit_(std::move(limit)) {}

void throw_count_overflow(const char* what) {
  throw CounterOverflow(what, "2^64");
}

void throw_cycle_overflow() {
  throw CounterOverflow("cycles", "2^63");
}

Count AccessCounts::total_reads() const {
  return checked_add(checked_add(reads[0], reads[1], "memory reads"), reads[2], "memory reads");
}

Count AccessCounts::total_writes() const {
  return checked_add(checked_add(writes[0], writes[1], "memory writes"), writes[2],
                     "memory writes");
}

AccessCounts& AccessCounts::operator+=(const AccessCounts& o) {
  for (int i = 0; i < kNumOperands; ++i) {
    reads[i] = checked_add(reads[i], o.reads[i], "memory reads");
    writes[i] = checked_add(writes[i], o.writes[i], "memory writes");
  }
  return *this;
}

double utilization_over(Count macs, std::int64_t pes, std::int64_t cycles) {
  if (cycles <= 0 || pes <= 0) return 0;
  return static_cast<double>(macs) / (static_cast<double>(pes) * static_cast<double>(cycles));
}

double OpStats::utilization() const {
  return utilization_over(macs, pes, cycles());
}

double OpStats::compute_utilization() const {
  return utilization_over(macs, pes, compute_cycles);
}

Count OpStats::dram_bytes() const {
  Count b = 0;
  for (int i = 0; i < kNumOperands; ++i) {
    b = checked_add(b, dram_read_bytes[i], "DRAM bytes");
    b = checked_add(b, dram_write_bytes[i], "DRAM bytes");
  }
  return b;
}

namespace {

std::int64_t checked_cycles(std::int64_t a, std::int64_t b, bool multiply) {
  return multiply ? checked_mul(a, b) : checked_add(a, b);
}

}  // namespace

OpStats OpStats::repeated(std::int64_t n) const {
  OpStats s;
  s.pes = pes;
  s.mapping = mapping;
  return s.add_repeated(*this, n);
}

OpStats& OpStats::add_repeated(const OpStats& o, std::int64_t n) {
  const Count k = static_cast<Count>(n);
  auto add = [k](Count& to, Count x, const char* what) {
    to = checked_add(to, checked_mul(x, k, what), what);
  };
  auto add_cycles = [n](std::int64_t& to, std::int64_t x) {
    to = checked_add(to, checked_mul(x, n));
  };
  auto add_counts = [&](AccessCounts& to, const AccessCounts& a, const char* what) {
    for (int i = 0; i < kNumOperands; ++i) {
      add(to.reads[i], a.reads[i], what);
      add(to.writes[i], a.writes[i], what);
    }
  };
  add(macs, o.macs, "MACs");
  add(vector_ops, o.vector_ops, "vector ops");
  add_cycles(compute_cycles, o.compute_cycles);
  add_cycles(stall_cycles, o.stall_cycles);
  add_counts(rf, o.rf, "RF accesses");
  add_counts(noc, o.noc, "NoC transfers");
  add_counts(buffer, o.buffer, "buffer accesses");
  add_counts(acc, o.acc, "accumulator accesses");
  for (int i = 0; i < kNumOperands; ++i) {
    add(dram_read_bytes[i], o.dram_read_bytes[i], "DRAM bytes");
    add(dram_write_bytes[i], o.dram_write_bytes[i], "DRAM bytes");
  }
  add(onchip_read_bytes, o.onchip_read_bytes, "on-chip bytes");
  add(skipped_write_bytes, o.skipped_write_bytes, "skipped bytes");
  add(compulsory_dram_bytes, o.compulsory_dram_bytes, "compulsory bytes");
  return *this;
}

OpStats& OpStats::operator+=(const OpStats& o) {
  macs = checked_add(macs, o.macs, "MACs");
  compute_cycles = checked_cycles(compute_cycles, o.compute_cycles, false);
  stall_cycles = checked_cycles(stall_cycles, o.stall_cycles, false);
  vector_ops = checked_add(vector_ops, o.vector_ops, "vector ops");
  // `pes` is left alone: a sum of ops from different units (array, vector lanes) has no
  // single PE count; whoever aggregates sets it (AcceleratorSession: the array's).
  rf += o.rf;
  noc += o.noc;
  buffer += o.buffer;
  acc += o.acc;
  for (int i = 0; i < kNumOperands; ++i) {
    dram_read_bytes[i] = checked_add(dram_read_bytes[i], o.dram_read_bytes[i], "DRAM bytes");
    dram_write_bytes[i] = checked_add(dram_write_bytes[i], o.dram_write_bytes[i], "DRAM bytes");
  }
  onchip_read_bytes = checked_add(onchip_read_bytes, o.onchip_read_bytes, "on-chip bytes");
  skipped_write_bytes = checked_add(skipped_write_bytes, o.skipped_write_bytes, "skipped bytes");
  compulsory_dram_bytes =
      checked_add(compulsory_dram_bytes, o.compulsory_dram_bytes, "compulsory bytes");
  return *this;
}

}  // namespace trainsim
