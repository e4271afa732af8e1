#pragma once
// A one-line progress bar redrawn in place on stderr. It draws only when stderr is a
// terminal, so piped or logged output never contains carriage-return noise.
#include <chrono>
#include <cstdint>
#include <string>

namespace trainsim {

class ProgressBar {
 public:
  explicit ProgressBar(std::string label);
  ~ProgressBar();
  /// Redraws at most ~20 times a second; `extra` is appended after the bar.
  void update(std::int64_t done, std::int64_t total, const std::string& extra);
  /// Erases the bar.
  void clear();
  bool enabled() const { return enabled_; }

 private:
  std::string label_;
  bool enabled_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point last_;
};

}  // namespace trainsim
