#pragma once
// epochs.csv, one schema for every run kind (train, run, shape-only, system, hype): the
// common columns first, then the extras the kind declares. Tools that compare runs of
// different kinds (trainsim compare, sweep, tools/plot) read the common columns by name and
// never need to know which kind wrote the file.
//
//   epoch               1, 2, ...
//   train_loss, train_accuracy, test_loss, test_accuracy
//                       the numerics' figures; empty where the run trains nothing (shape only)
//   seconds             simulated training time of the epoch; empty for `train` (numerics
//                       only: nothing is simulated; its wall time is in timing.json)
//   samples_per_second  training samples / seconds
//   energy, energy_unit the epoch's training energy and its unit (an energy table's `pJ` or
//                       `normalized`, `J` for a hype: system): the figure compare and sweep
//                       put side by side, so each row says what it is counted in
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "sim/core/csv.h"

namespace trainsim {

/// The common cells of one epoch; NaN (the default) leaves a cell empty.
struct EpochCells {
  static constexpr double kNone = std::numeric_limits<double>::quiet_NaN();
  std::int64_t epoch = 0;
  double train_loss = kNone, train_accuracy = kNone, test_loss = kNone, test_accuracy = kNone;
  double seconds = kNone, samples_per_second = kNone, energy = kNone;
};

/// The common columns, in order.
const std::vector<std::string>& epoch_common_columns();

class EpochTable {
 public:
  /// `extras`: the kind's own columns, after the common ones; `energy_unit` fills the
  /// energy_unit cell of rows that have an energy.
  EpochTable(std::string energy_unit, const std::vector<std::string>& extras);
  /// Writes a row's common cells; append the extras' cells to the returned table, in the
  /// order they were declared.
  CsvTable& row(const EpochCells& c);
  std::string text() const { return csv_.text(); }

 private:
  std::string energy_unit_;
  CsvTable csv_;
};

}  // namespace trainsim
