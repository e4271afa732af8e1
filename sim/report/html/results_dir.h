#pragma once
// A results directory as report.html reads it: its files by name, stats.json parsed once,
// CSV files as rows addressed by column name. Missing files read as empty; a file that is
// there but unreadable (stats.json that is not JSON, a CSV with an open quote) is a UserError
// naming it: the report never guesses around a damaged record.
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace trainsim {

struct CsvData {
  std::vector<std::string> head;
  std::vector<std::vector<std::string>> rows;
  bool empty() const { return head.empty(); }
  /// Index of column `name`, or -1.
  int column(const std::string& name) const;
  /// Cell of row `r` in column `name` ("" when absent).
  std::string cell(std::size_t r, const std::string& name) const;
  /// The same as a number (NaN when empty or not a number).
  double number(std::size_t r, const std::string& name) const;
};

class ResultsDir {
 public:
  explicit ResultsDir(std::string path);
  const std::string& path() const { return path_; }
  bool has(const std::string& name) const;
  std::string text(const std::string& name) const;
  /// stats.json (an empty object when there is none).
  const nlohmann::ordered_json& stats() const;
  /// A CSV file, parsed once (a page reads batch_layers.csv for a chart, a table and the
  /// DRAM section).
  const CsvData& csv(const std::string& name) const;
  /// The files in the directory, sorted (not the manifest, not report.html itself).
  std::vector<std::string> files() const;

 private:
  std::string path_;
  mutable std::unique_ptr<nlohmann::ordered_json> stats_;
  mutable std::map<std::string, CsvData> csvs_;
};

/// A number of a JSON tree at a '/'-separated path, NaN when absent or not a number.
double json_number(const nlohmann::ordered_json& j, const std::string& path);
/// A string at a path ("" when absent; numbers and booleans as text).
std::string json_text(const nlohmann::ordered_json& j, const std::string& path);

}  // namespace trainsim
