#include "sim/report/epoch_table.h"

#include <cmath>

namespace trainsim {

namespace {

std::vector<std::string> with_extras(const std::vector<std::string>& extras) {
  std::vector<std::string> cols = epoch_common_columns();
  cols.insert(cols.end(), extras.begin(), extras.end());
  return cols;
}

}  // namespace

const std::vector<std::string>& epoch_common_columns() {
  static const std::vector<std::string> cols = {
      "epoch",   "train_loss",         "train_accuracy", "test_loss",  "test_accuracy",
      "seconds", "samples_per_second", "energy",         "energy_unit"};
  return cols;
}

EpochTable::EpochTable(std::string energy_unit, const std::vector<std::string>& extras)
    : energy_unit_(std::move(energy_unit)), csv_(with_extras(extras)) {}

CsvTable& EpochTable::row(const EpochCells& c) {
  auto cell = [this](const char* format, double v) -> CsvTable& {
    return std::isnan(v) ? csv_.cell("") : csv_.num(format, v);
  };
  csv_.row().cell(c.epoch);
  cell("%.6f", c.train_loss);
  cell("%.6f", c.train_accuracy);
  cell("%.6f", c.test_loss);
  cell("%.6f", c.test_accuracy);
  cell("%.9g", c.seconds);
  cell("%.6g", c.samples_per_second);
  cell("%.6e", c.energy);
  return csv_.cell(std::isnan(c.energy) ? std::string() : energy_unit_);
}

}  // namespace trainsim
