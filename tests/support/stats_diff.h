#pragma once
// Names the first OpStats counter where two runs of the same op differ, for the agreement
// tests (cycle fidelity against fast, tile walk against closed form).
#include <sstream>
#include <string>

#include "sim/spec/op_stats.h"

namespace trainsim::test {

/// "" if every counter agrees, else e.g. "buffer.reads[ifmap]: fast 12, cycle 13".
inline std::string first_difference(const OpStats& fast, const OpStats& cycle) {
  std::ostringstream os;
  auto field = [&](const std::string& name, std::int64_t a, std::int64_t b) {
    if (a != b && os.tellp() == 0) os << name << ": fast " << a << ", cycle " << b;
  };
  field("macs", fast.macs, cycle.macs);
  field("compute_cycles", fast.compute_cycles, cycle.compute_cycles);
  field("stall_cycles", fast.stall_cycles, cycle.stall_cycles);
  field("vector_ops", fast.vector_ops, cycle.vector_ops);
  field("pes", fast.pes, cycle.pes);
  const std::pair<const char*, const AccessCounts*> levels[][2] = {
      {{"rf", &fast.rf}, {"rf", &cycle.rf}},
      {{"noc", &fast.noc}, {"noc", &cycle.noc}},
      {{"buffer", &fast.buffer}, {"buffer", &cycle.buffer}},
      {{"acc", &fast.acc}, {"acc", &cycle.acc}}};
  for (const auto& lv : levels) {
    for (int o = 0; o < kNumOperands; ++o) {
      field(std::string(lv[0].first) + ".reads[" + operand_name(o) + "]", lv[0].second->reads[o],
            lv[1].second->reads[o]);
      field(std::string(lv[0].first) + ".writes[" + operand_name(o) + "]", lv[0].second->writes[o],
            lv[1].second->writes[o]);
    }
  }
  for (int o = 0; o < kNumOperands; ++o) {
    field(std::string("dram_read_bytes[") + operand_name(o) + "]", fast.dram_read_bytes[o],
          cycle.dram_read_bytes[o]);
    field(std::string("dram_write_bytes[") + operand_name(o) + "]", fast.dram_write_bytes[o],
          cycle.dram_write_bytes[o]);
  }
  field("onchip_read_bytes", fast.onchip_read_bytes, cycle.onchip_read_bytes);
  field("skipped_write_bytes", fast.skipped_write_bytes, cycle.skipped_write_bytes);
  if (os.tellp() == 0 && fast.mapping != cycle.mapping) os << "mapping";
  return os.str();
}

}  // namespace trainsim::test
