#pragma once
// The one CSV writer every CSV trainsim writes goes through: RFC 4180 quoting (a cell holding
// a comma, a double quote, CR or LF is quoted, quotes doubled), "\n" line ends, and a check
// that every row has one cell per column. Layer and variant names come from user configs,
// so `fc,1` must stay one cell.
#include <cstdint>
#include <string>
#include <vector>

namespace trainsim {

/// `text` as one CSV cell.
std::string csv_cell(const std::string& text);

/// Rows of cells of a CSV text as CsvTable writes it (RFC 4180; CRLF accepted). Throws
/// std::invalid_argument on an unterminated quote.
std::vector<std::vector<std::string>> parse_csv(const std::string& text);

class CsvTable {
 public:
  explicit CsvTable(std::vector<std::string> columns);
  /// Starts a row; append its cells with the cell() calls, in column order.
  CsvTable& row();
  CsvTable& cell(const std::string& text);
  CsvTable& cell(const char* text) { return cell(std::string(text)); }
  CsvTable& cell(std::int64_t v);
  CsvTable& cell(std::uint64_t v);  ///< event counts (sim/spec/op_stats.h)
  CsvTable& cell(int v) { return cell(static_cast<std::int64_t>(v)); }
  /// A number in printf `format` (e.g. "%.6f").
  CsvTable& num(const char* format, double v);
  /// The table; throws std::logic_error if a row is short or long.
  std::string text() const;
  /// The table so far (the header only the first time), which is then dropped: a table of
  /// many rows is written a block at a time, not held whole.
  std::string take();

 private:
  void end_row() const;
  std::size_t columns_;
  std::string text_;
  std::size_t cells_in_row_ = 0;
  bool in_row_ = false;
};

}  // namespace trainsim
