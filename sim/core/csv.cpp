#include "sim/core/csv.h"

#include <stdexcept>

#include "sim/core/format.h"

namespace trainsim {

std::string csv_cell(const std::string& text) {
  if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::vector<std::vector<std::string>> parse_csv(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> row;
  std::string cell;
  bool quoted = false, row_started = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c != '"') {
        cell += c;
      } else if (i + 1 < text.size() && text[i + 1] == '"') {
        cell += '"';
        ++i;
      } else {
        quoted = false;
      }
      continue;
    }
    row_started = true;
    if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      row.push_back(std::move(cell));
      cell.clear();
    } else if (c == '\n' || c == '\r') {
      if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
      row.push_back(std::move(cell));
      cell.clear();
      rows.push_back(std::move(row));
      row.clear();
      row_started = false;
    } else {
      cell += c;
    }
  }
  if (quoted) throw std::invalid_argument("CSV: unterminated quoted cell");
  if (row_started) {
    row.push_back(std::move(cell));
    rows.push_back(std::move(row));
  }
  return rows;
}

CsvTable::CsvTable(std::vector<std::string> columns) : columns_(columns.size()) {
  for (std::size_t i = 0; i < columns.size(); ++i) text_ += (i ? "," : "") + csv_cell(columns[i]);
  text_ += "\n";
}

void CsvTable::end_row() const {
  if (in_row_ && cells_in_row_ != columns_)
    throw std::logic_error("CSV row with " + std::to_string(cells_in_row_) + " cells for " +
                           std::to_string(columns_) + " columns");
}

CsvTable& CsvTable::row() {
  end_row();
  if (in_row_) text_ += "\n";
  in_row_ = true;
  cells_in_row_ = 0;
  return *this;
}

CsvTable& CsvTable::cell(const std::string& text) {
  if (!in_row_) throw std::logic_error("CSV cell outside a row");
  text_ += (cells_in_row_++ ? "," : "") + csv_cell(text);
  return *this;
}

CsvTable& CsvTable::cell(std::int64_t v) {
  return cell(std::to_string(v));
}

CsvTable& CsvTable::cell(std::uint64_t v) {
  return cell(std::to_string(v));
}

CsvTable& CsvTable::num(const char* format, double v) {
  return cell(fmt(format, v));
}

std::string CsvTable::text() const {
  end_row();
  return in_row_ ? text_ + "\n" : text_;
}

std::string CsvTable::take() {
  std::string out = text();
  text_.clear();
  in_row_ = false;
  cells_in_row_ = 0;
  return out;
}

}  // namespace trainsim
