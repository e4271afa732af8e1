#pragma once
// The finished rows of a sweep while it runs, kept on disk rather than in memory: one
// fixed-size record per point of its PointList in an unnamed temporary file (beside the
// results when the file system allows, else in the system's temporary directory), and the
// text of failed points' errors in a second one. A sweep of 100,000 points then holds no
// row in memory; sweep.csv is formed from the records by a sequential read
// (sim/sweep/sweep_table.h). The files vanish with the process: each run of a sweep fills
// its store again from the points' own result files, which stay the truth on disk.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "sim/sweep/sweep_table.h"

namespace trainsim {

class RowStore {
 public:
  /// Room for `points` rows, none finished; `dir` is where to try to keep the files.
  RowStore(const std::string& dir, std::size_t points);
  ~RowStore();
  RowStore(const RowStore&) = delete;
  RowStore& operator=(const RowStore&) = delete;

  std::size_t size() const { return size_; }
  /// Rows put so far, and how many of them failed.
  std::size_t finished() const { return finished_; }
  std::size_t failed() const { return failed_; }
  /// Records the row of the k-th point (its `point` is not kept); UserError if the disk
  /// refuses.
  void put(std::size_t k, const SweepRow& row);
  /// Calls `fn(k, row)` for every finished row in point order, reading the records in
  /// blocks; `row.point` is left empty for the caller to form.
  void scan(const std::function<void(std::size_t, const SweepRow&)>& fn) const;

 private:
  struct Record;
  std::size_t size_;
  std::size_t finished_ = 0, failed_ = 0;
  int rows_fd_ = -1, errors_fd_ = -1;
  std::uint64_t errors_end_ = 0;
  std::vector<std::string> units_;  ///< energy units seen (a handful), by record index
};

}  // namespace trainsim
