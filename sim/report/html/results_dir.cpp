#include "sim/report/html/results_dir.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>

#include "sim/core/csv.h"
#include "sim/core/error.h"
#include "sim/io/file_set.h"

namespace trainsim {

namespace fs = std::filesystem;

int CsvData::column(const std::string& name) const {
  const auto it = std::find(head.begin(), head.end(), name);
  return it == head.end() ? -1 : static_cast<int>(it - head.begin());
}

std::string CsvData::cell(std::size_t r, const std::string& name) const {
  const int c = column(name);
  if (c < 0 || r >= rows.size() || static_cast<std::size_t>(c) >= rows[r].size()) return "";
  return rows[r][static_cast<std::size_t>(c)];
}

double CsvData::number(std::size_t r, const std::string& name) const {
  const std::string s = cell(r, name);
  if (s.empty()) return NAN;
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  return end == s.c_str() + s.size() ? v : NAN;
}

ResultsDir::ResultsDir(std::string path) : path_(std::move(path)) {}

bool ResultsDir::has(const std::string& name) const {
  std::error_code ec;
  return fs::is_regular_file(path_ + "/" + name, ec);
}

std::string ResultsDir::text(const std::string& name) const {
  return has(name) ? read_text_file(path_ + "/" + name) : std::string();
}

const nlohmann::ordered_json& ResultsDir::stats() const {
  if (!stats_) {
    stats_ = std::make_unique<nlohmann::ordered_json>(nlohmann::ordered_json::object());
    if (has("stats.json")) {
      try {
        *stats_ = nlohmann::ordered_json::parse(text("stats.json"));
      } catch (const nlohmann::ordered_json::exception& e) {
        throw UserError(path_ + "/stats.json: not a stats file (" + std::string(e.what()) + ")");
      }
      if (!stats_->is_object())
        throw UserError(path_ + "/stats.json: not a stats file (not a JSON object)");
    }
  }
  return *stats_;
}

const CsvData& ResultsDir::csv(const std::string& name) const {
  auto known = csvs_.find(name);
  if (known != csvs_.end()) return known->second;
  CsvData d;
  std::vector<std::vector<std::string>> rows;
  try {
    if (has(name)) rows = parse_csv(text(name));
  } catch (const std::invalid_argument& e) {
    throw UserError(path_ + "/" + name + ": " + e.what());
  }
  if (!rows.empty()) {
    d.head = std::move(rows.front());
    d.rows.assign(std::make_move_iterator(rows.begin() + 1), std::make_move_iterator(rows.end()));
  }
  return csvs_.emplace(name, std::move(d)).first->second;
}

std::vector<std::string> ResultsDir::files() const {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(path_, ec)) {
    const std::string n = e.path().filename().string();
    // Not the page itself, nor trainsim's bookkeeping (the manifest, a staging marker).
    if (n == "report.html" || n.empty() || n[0] == '.') continue;
    out.push_back(e.is_directory(ec) ? n + "/" : n);
  }
  std::sort(out.begin(), out.end());
  return out;
}

namespace {

const nlohmann::ordered_json* at_path(const nlohmann::ordered_json& j, const std::string& path) {
  const nlohmann::ordered_json* at = &j;
  std::size_t start = 0;
  while (start <= path.size()) {
    const std::size_t slash = path.find('/', start);
    const std::string key = path.substr(start, slash == std::string::npos ? slash : slash - start);
    if (!at->is_object()) return nullptr;
    const auto it = at->find(key);
    if (it == at->end()) return nullptr;
    at = &*it;
    if (slash == std::string::npos) break;
    start = slash + 1;
  }
  return at;
}

}  // namespace

double json_number(const nlohmann::ordered_json& j, const std::string& path) {
  const nlohmann::ordered_json* v = at_path(j, path);
  return v && v->is_number() ? v->get<double>() : NAN;
}

std::string json_text(const nlohmann::ordered_json& j, const std::string& path) {
  const nlohmann::ordered_json* v = at_path(j, path);
  if (!v || v->is_null()) return "";
  if (v->is_string()) return v->get<std::string>();
  if (v->is_object() || v->is_array()) return "";
  return v->dump();
}

}  // namespace trainsim
