#include "sim/interop/scalesim_reports.h"

#include <cstdio>
#include <filesystem>

#include "sim/io/file_set.h"

namespace trainsim {

namespace {

std::string num(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

}  // namespace

void write_scalesim_reports(const std::string& dir, const AcceleratorSpec& acc,
                            const std::vector<ScaleSimLayerResult>& layers) {
  std::filesystem::create_directories(dir);
  // The headers are SCALE-Sim v2's, byte for byte (its rows end with a comma too).
  std::string compute =
      "LayerID, Total Cycles, Stall Cycles, Overall Util %, Mapping Efficiency %, Compute Util "
      "%,\n";
  std::string bandwidth =
      "LayerID, Avg IFMAP SRAM BW, Avg FILTER SRAM BW, Avg OFMAP SRAM BW, Avg IFMAP DRAM BW, "
      "Avg FILTER DRAM BW, Avg OFMAP DRAM BW,\n";
  std::string detail =
      "LayerID, SRAM IFMAP Start Cycle, SRAM IFMAP Stop Cycle, SRAM IFMAP Reads, SRAM Filter "
      "Start Cycle, SRAM Filter Stop Cycle, SRAM Filter Reads, SRAM OFMAP Start Cycle, SRAM "
      "OFMAP Stop Cycle, SRAM OFMAP Writes, DRAM IFMAP Start Cycle, DRAM IFMAP Stop Cycle, DRAM "
      "IFMAP Reads, DRAM Filter Start Cycle, DRAM Filter Stop Cycle, DRAM Filter Reads, DRAM "
      "OFMAP Start Cycle, DRAM OFMAP Stop Cycle, DRAM OFMAP Writes,\n";
  const double pes = static_cast<double>(acc.rows) * static_cast<double>(acc.cols);
  const double word = static_cast<double>(acc.word_bytes());
  for (std::size_t i = 0; i < layers.size(); ++i) {
    const ScaleSimLayerResult& l = layers[i];
    const std::string id = std::to_string(i);
    const double compute_cycles = static_cast<double>(l.view.compute_cycles);
    const double stall = static_cast<double>(l.stats.stall_cycles);
    const double total = compute_cycles + stall;
    const double macs = static_cast<double>(l.stats.macs);
    compute += id + ", " + num(total) + ", " + num(stall) + ", " +
               num(total > 0 ? 100 * macs / (pes * total) : 0) + ", " +
               num(l.view.mapping_efficiency_pct) + ", " +
               num(compute_cycles > 0 ? 100 * macs / (pes * compute_cycles) : 0) + ",\n";
    const double dram[3] = {static_cast<double>(l.stats.dram_read_bytes[kIfmap]) / word,
                            static_cast<double>(l.stats.dram_read_bytes[kFilter]) / word,
                            static_cast<double>(l.stats.dram_write_bytes[kOfmap]) / word};
    const double sram[3] = {static_cast<double>(l.view.ifmap_sram_reads),
                            static_cast<double>(l.view.filter_sram_reads),
                            static_cast<double>(l.view.ofmap_sram_writes)};
    bandwidth += id;
    for (double v : sram) bandwidth += ", " + num(total > 0 ? v / total : 0);
    for (double v : dram) bandwidth += ", " + num(total > 0 ? v / total : 0);
    bandwidth += ",\n";
    // trainsim does not trace when each stream starts and stops within an op: every stream
    // is reported over the op's whole span [0, total cycles).
    detail += id;
    for (double v : sram) detail += ", 0, " + num(total) + ", " + num(v);
    for (double v : dram) detail += ", 0, " + num(total) + ", " + num(v);
    detail += ",\n";
  }
  write_text_file(dir + "/COMPUTE_REPORT.csv", compute);
  write_text_file(dir + "/BANDWIDTH_REPORT.csv", bandwidth);
  write_text_file(dir + "/DETAILED_ACCESS_REPORT.csv", detail);
}

}  // namespace trainsim
