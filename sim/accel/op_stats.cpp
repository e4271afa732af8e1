#include "sim/accel/op_stats.h"

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

AccessCounts& AccessCounts::operator+=(const AccessCounts& o) {
  for (int i = 0; i < kNumOperands; ++i) {
    reads[i] += o.reads[i];
    writes[i] += o.writes[i];
  }
  return *this;
}

double utilization_over(std::int64_t macs, std::int64_t pes, std::int64_t cycles) {
  if (cycles <= 0 || pes <= 0) return 0;
  return static_cast<double>(macs) / (static_cast<double>(pes) * static_cast<double>(cycles));
}

double OpStats::utilization() const {
  return utilization_over(macs, pes, cycles());
}

double OpStats::compute_utilization() const {
  return utilization_over(macs, pes, compute_cycles);
}

std::int64_t OpStats::dram_bytes() const {
  std::int64_t b = 0;
  for (int i = 0; i < kNumOperands; ++i) b += dram_read_bytes[i] + dram_write_bytes[i];
  return b;
}

OpStats OpStats::repeated(std::int64_t n) const {
  OpStats s = *this;
  auto times = [n](AccessCounts& a) {
    for (int i = 0; i < kNumOperands; ++i) a.reads[i] *= n, a.writes[i] *= n;
  };
  s.macs *= n, s.compute_cycles *= n, s.stall_cycles *= n, s.vector_ops *= n;
  times(s.rf), times(s.noc), times(s.buffer);
  for (int i = 0; i < kNumOperands; ++i) s.dram_read_bytes[i] *= n, s.dram_write_bytes[i] *= n;
  s.onchip_read_bytes *= n, s.skipped_write_bytes *= n;
  return s;
}

OpStats& OpStats::operator+=(const OpStats& o) {
  macs += o.macs;
  compute_cycles += o.compute_cycles;
  stall_cycles += o.stall_cycles;
  vector_ops += o.vector_ops;
  // `pes` is left alone: a sum of ops from different units (array, vector lanes) has no
  // single PE count; whoever aggregates sets it (AcceleratorSession: the array's).
  rf += o.rf;
  noc += o.noc;
  buffer += o.buffer;
  for (int i = 0; i < kNumOperands; ++i) {
    dram_read_bytes[i] += o.dram_read_bytes[i];
    dram_write_bytes[i] += o.dram_write_bytes[i];
  }
  onchip_read_bytes += o.onchip_read_bytes;
  skipped_write_bytes += o.skipped_write_bytes;
  return *this;
}

}  // namespace trainsim
