#include "sim/hype/table1.h"

#include <cmath>
#include <stdexcept>

#include "sim/core/csv.h"
#include "sim/core/error.h"
#include "sim/core/paths.h"
#include "sim/io/file_set.h"
#include "sim/io/output_target.h"

namespace trainsim {

namespace {

const std::vector<std::string> kColumns = {"op",          "size",       "fpga_peak_w", "fpga_avg_w",
                                           "fpga_ms",     "gpu_peak_w", "gpu_avg_w",   "gpu_ms",
                                           "gpu_bw_gbps", "gpu_ipc",    "note"};

double number(const std::string& cell, const std::string& where, const std::string& column) {
  std::size_t used = 0;
  double v = 0;
  try {
    v = std::stod(cell, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != cell.size() || !std::isfinite(v) || v < 0)
    throw UserError(where + ": " + column + ": expected a number >= 0, got '" + cell + "'");
  return v;
}

}  // namespace

std::string hype_table1_path() {
  return configs_root() + "/devices/hype_table1.csv";
}

std::vector<HypeTable1Row> load_hype_table1(const std::string& path) {
  note_input_path(path);
  const std::string text = read_text_file(path);
  // Comment lines are cut before the CSV parser sees the text; their count keeps the line
  // numbers of errors true to the file.
  std::size_t body = 0;
  int skipped = 0;
  while (body < text.size() && text[body] == '#') {
    const std::size_t eol = text.find('\n', body);
    body = eol == std::string::npos ? text.size() : eol + 1;
    ++skipped;
  }
  std::vector<std::vector<std::string>> rows;
  try {
    rows = parse_csv(text.substr(body));
  } catch (const std::invalid_argument& e) {
    throw UserError(path + ": " + e.what());
  }
  if (rows.empty() || rows[0] != kColumns) {
    std::string expected;
    for (const auto& c : kColumns) expected += (expected.empty() ? "" : ",") + c;
    throw UserError(path + ":" + std::to_string(skipped + 1) + ": expected the header " + expected);
  }
  std::vector<HypeTable1Row> out;
  for (std::size_t i = 1; i < rows.size(); ++i) {
    const std::vector<std::string>& r = rows[i];
    const std::string where = path + ":" + std::to_string(skipped + 1 + static_cast<int>(i));
    if (r.size() != kColumns.size())
      throw UserError(where + ": expected " + std::to_string(kColumns.size()) + " cells, got " +
                      std::to_string(r.size()));
    HypeTable1Row row;
    row.op = r[0];
    if (!parse_size_class(r[1], row.size))
      throw UserError(where + ": size: expected small, medium or large, got '" + r[1] + "'");
    double* fields[] = {&row.fpga_peak_w, &row.fpga_avg_w, &row.fpga_ms,     &row.gpu_peak_w,
                        &row.gpu_avg_w,   &row.gpu_ms,     &row.gpu_bw_gbps, &row.gpu_ipc};
    for (std::size_t c = 0; c < 8; ++c) *fields[c] = number(r[2 + c], where, kColumns[2 + c]);
    row.note = r[10];
    out.push_back(row);
  }
  return out;
}

}  // namespace trainsim
