#include "sim/report/op_report.h"

#include <cstdio>
#include <utility>

namespace trainsim {

namespace {
// An object of two numbers, built key by key: nlohmann's initializer lists make and inspect a
// temporary per element, several times the object's own cost, and stats.json holds thousands
// of these (every op total's counts).
template <class A, class B>
nlohmann::ordered_json two(const char* ka, A a, const char* kb, B b) {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  j.emplace(ka, a);
  j.emplace(kb, b);
  return j;
}

nlohmann::ordered_json counts_json(const AccessCounts& c) {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  for (int o = 0; o < kNumOperands; ++o)
    j.emplace(operand_name(o), two("reads", c.reads[o], "writes", c.writes[o]));
  return j;
}

std::string line(const char* label, std::int64_t a, std::int64_t b, std::int64_t c) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "  %-16s %16lld %16lld %16lld\n", label, static_cast<long long>(a),
                static_cast<long long>(b), static_cast<long long>(c));
  return buf;
}
}  // namespace

nlohmann::ordered_json stats_json(const OpStats& s, const AcceleratorSpec& acc) {
  nlohmann::ordered_json j;
  j["cycles"] = s.cycles();
  j["compute_cycles"] = s.compute_cycles;
  j["stall_cycles"] = s.stall_cycles;
  j["seconds"] = static_cast<double>(s.cycles()) / (acc.clock_ghz * 1e9);
  j["macs"] = s.macs;
  j["utilization"] = s.utilization();
  j["compute_utilization"] = s.compute_utilization();
  j["vector_ops"] = s.vector_ops;
  nlohmann::ordered_json m = nlohmann::ordered_json::object();
  for (const auto& [k, v] : s.mapping) m[k] = v;
  j["mapping"] = std::move(m);
  j["rf"] = counts_json(s.rf);
  j["noc"] = counts_json(s.noc);
  j["buffer"] = counts_json(s.buffer);
  j["accumulator"] = counts_json(s.acc);
  nlohmann::ordered_json d = nlohmann::ordered_json::object();
  for (int o = 0; o < kNumOperands; ++o)
    d.emplace(operand_name(o),
              two("read_bytes", s.dram_read_bytes[o], "write_bytes", s.dram_write_bytes[o]));
  j["dram"] = std::move(d);
  j["dram_bytes"] = s.dram_bytes();
  // Inter-op residency: what stayed on chip instead of going through DRAM.
  j["onchip_read_bytes"] = s.onchip_read_bytes;
  j["skipped_write_bytes"] = s.skipped_write_bytes;
  // The least any mapping moves (mapping/bounds.h): dram_bytes against it is the schedule's
  // excess traffic.
  j["compulsory_dram_bytes"] = s.compulsory_dram_bytes;
  return j;
}

nlohmann::ordered_json energy_json(const EnergyBreakdown& e, const std::string& unit) {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  j.emplace("unit", unit);
  for (const auto& [key, pj] : {std::pair<const char*, double>{"mac", e.mac},
                                {"rf", e.rf},
                                {"noc", e.noc},
                                {"buffer", e.buffer},
                                {"accumulator", e.accumulator},
                                {"dram", e.dram},
                                {"vector", e.vector},
                                {"leakage", e.leakage},
                                {"total", e.total()}})
    j.emplace(key, pj);
  return j;
}

nlohmann::ordered_json scalesim_json(const ScaleSimView& v) {
  return {{"compute_cycles", v.compute_cycles},
          {"ifmap_sram_reads", v.ifmap_sram_reads},
          {"filter_sram_reads", v.filter_sram_reads},
          {"ofmap_sram_writes", v.ofmap_sram_writes}};
}

std::string stats_text(const OpStats& s, const EnergyBreakdown& e, const AcceleratorSpec& acc) {
  char buf[256];
  std::string out;
  std::snprintf(buf, sizeof buf,
                "cycles       %lld (compute %lld + DRAM stall %lld) = %.3f us at %g GHz\n",
                static_cast<long long>(s.cycles()), static_cast<long long>(s.compute_cycles),
                static_cast<long long>(s.stall_cycles),
                static_cast<double>(s.cycles()) / (acc.clock_ghz * 1e3), acc.clock_ghz);
  out += buf;
  std::snprintf(buf, sizeof buf,
                "utilization  %.2f%% of %lld PEs (%.2f%% while computing, without stalls)\n"
                "MACs         %lld\n",
                100 * s.utilization(), static_cast<long long>(s.pes), 100 * s.compute_utilization(),
                static_cast<long long>(s.macs));
  out += buf;
  if (!s.mapping.empty()) {
    out += "mapping     ";
    for (const auto& [k, v] : s.mapping) out += " " + k + "=" + std::to_string(v);
    out += "\n";
  }
  std::snprintf(buf, sizeof buf, "accesses (words) %16s %16s %16s\n", "ifmap", "filter", "ofmap");
  out += buf;
  out += line("RF reads", s.rf.reads[0], s.rf.reads[1], s.rf.reads[2]);
  out += line("RF writes", s.rf.writes[0], s.rf.writes[1], s.rf.writes[2]);
  out += line("NoC reads", s.noc.reads[0], s.noc.reads[1], s.noc.reads[2]);
  out += line("NoC writes", s.noc.writes[0], s.noc.writes[1], s.noc.writes[2]);
  out += line("buffer reads", s.buffer.reads[0], s.buffer.reads[1], s.buffer.reads[2]);
  out += line("buffer writes", s.buffer.writes[0], s.buffer.writes[1], s.buffer.writes[2]);
  if (acc.accumulator.words > 0) {
    out += line("acc. reads", s.acc.reads[0], s.acc.reads[1], s.acc.reads[2]);
    out += line("acc. writes", s.acc.writes[0], s.acc.writes[1], s.acc.writes[2]);
  }
  out += line("DRAM read B", s.dram_read_bytes[0], s.dram_read_bytes[1], s.dram_read_bytes[2]);
  out += line("DRAM write B", s.dram_write_bytes[0], s.dram_write_bytes[1], s.dram_write_bytes[2]);
  const std::string unit = acc.energy.unit;
  std::snprintf(buf, sizeof buf, "energy (%s)  MAC %.4g | RF %.4g | NoC %.4g | buffer %.4g | ",
                unit.c_str(), e.mac, e.rf, e.noc, e.buffer);
  out += buf;
  if (acc.accumulator.words > 0) {
    std::snprintf(buf, sizeof buf, "accumulator %.4g | ", e.accumulator);
    out += buf;
  }
  std::snprintf(buf, sizeof buf, "DRAM %.4g | vector %.4g | leakage %.4g | total %.4g", e.dram,
                e.vector, e.leakage, e.total());
  out += buf;
  if (s.macs > 0) {
    std::snprintf(buf, sizeof buf, " (%.4g per MAC)", e.total() / static_cast<double>(s.macs));
    out += buf;
  }
  out += "\n";
  return out;
}

}  // namespace trainsim
