// scalesim_view() against SCALE-Sim v2's own output: every row of the reference results
// (layer, array, dataflow, GEMM shape -> compute cycles and SRAM counts) must agree.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "dataflows/registry.h"

using namespace trainsim;

namespace {

const char* const kResultsCsv = TRAINSIM_SOURCE_DIR "/tests/data/scalesim/results.csv";

std::vector<std::string> split_csv_line(const std::string& line) {
  std::vector<std::string> cells;
  std::stringstream ss(line);
  std::string cell;
  while (std::getline(ss, cell, ',')) {
    if (!cell.empty() && cell.back() == '\r') cell.pop_back();
    cells.push_back(cell);
  }
  return cells;
}

double relative_error(std::int64_t ours, std::int64_t theirs) {
  const double d = std::abs(static_cast<double>(ours - theirs));
  return theirs == 0 ? d : d / std::abs(static_cast<double>(theirs));
}

}  // namespace

TEST_CASE("scalesim_view matches every row of SCALE-Sim v2's results", "[dataflow][systolic]") {
  std::ifstream in(kResultsCsv);
  if (!in)
    FAIL("cannot open " << kResultsCsv
                        << ": the SCALE-Sim reference results (tests/data/scalesim)");
  std::string line;
  REQUIRE(std::getline(in, line));
  const std::vector<std::string> header = split_csv_line(line);
  std::map<std::string, std::size_t> col;
  for (std::size_t i = 0; i < header.size(); ++i) col[header[i]] = i;
  const char* const needed[] = {
      "layer",          "array_rows",       "array_cols",        "dataflow",         "M", "N", "K",
      "compute_cycles", "ifmap_sram_reads", "filter_sram_reads", "ofmap_sram_writes"};
  for (const char* name : needed) {
    INFO("column " << name);
    REQUIRE(col.count(name) == 1);
  }

  int data_rows = 0, checked = 0;
  double max_error = 0;
  while (std::getline(in, line)) {
    if (line.empty() || line == "\r") continue;
    ++data_rows;
    const std::vector<std::string> cells = split_csv_line(line);
    REQUIRE(cells.size() == header.size());
    auto num = [&](const char* name) { return std::stoll(cells[col[name]]); };
    AcceleratorSpec acc;
    acc.name = "scalesim";
    acc.rows = static_cast<int>(num("array_rows"));
    acc.cols = static_cast<int>(num("array_cols"));
    const Dataflow* df = find_dataflow(cells[col["dataflow"]]);
    INFO(cells[col["layer"]] << " " << acc.rows << "x" << acc.cols << " "
                             << cells[col["dataflow"]]);
    REQUIRE(df != nullptr);
    const Op op = Op::make_gemm({num("M"), num("N"), num("K")});
    ScaleSimView v;
    REQUIRE(df->scalesim_view(op, acc, v));
    const std::pair<std::int64_t, const char*> figures[] = {
        {v.compute_cycles, "compute_cycles"},
        {v.ifmap_sram_reads, "ifmap_sram_reads"},
        {v.filter_sram_reads, "filter_sram_reads"},
        {v.ofmap_sram_writes, "ofmap_sram_writes"}};
    for (const auto& [ours, name] : figures) {
      const std::int64_t theirs = num(name);
      const double err = relative_error(ours, theirs);
      INFO(name << ": trainsim " << ours << ", SCALE-Sim " << theirs);
      CHECK(err <= 0.01);
      max_error = std::max(max_error, err);
    }
    ++checked;
  }
  // A parsing slip must not make the test vacuous: count the file's data lines separately.
  std::ifstream again(kResultsCsv);
  int lines = 0;
  while (std::getline(again, line))
    if (line.find_first_not_of(" \r") != std::string::npos) ++lines;
  CHECK(lines - 1 > 0);
  CHECK(data_rows == lines - 1);
  CHECK(checked == lines - 1);
  // Every figure is expected to be exact (the 1% tolerance is the acceptance bound).
  CHECK(max_error == 0);
}
