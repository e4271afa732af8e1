#pragma once
// A one-line progress bar redrawn in place on stderr, sized to the terminal so it never
// wraps. It draws only when stderr is a terminal, so piped or logged output never contains
// carriage-return noise (callers print one line per epoch there instead).
#include <chrono>
#include <cstdint>
#include <string>

namespace trainsim {

/// The bar's line for `done` of `total`: "LABEL [#####.....]  45% 0:12 ETA 0:15 | EXTRA".
/// Never longer than width - 1 columns (a line that fills the last column wraps on some
/// terminals); the extra text, then the times, then the bar are dropped as space runs out,
/// and what is left is cut. `eta_seconds` < 0: not known yet.
std::string render_progress(const std::string& label, std::int64_t done, std::int64_t total,
                            double elapsed_seconds, double eta_seconds, const std::string& extra,
                            int width);

/// "0:07", "12:34", "1:02:03".
std::string format_duration(double seconds);

/// Columns of the terminal on `fd`; else $COLUMNS; else 80.
int terminal_width(int fd);

/// True if stderr is a terminal (where the bar draws).
bool stderr_is_terminal();

class ProgressBar {
 public:
  explicit ProgressBar(std::string label);
  ~ProgressBar();
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;
  /// Redraws at most ~10 times a second (and always at the end).
  void update(std::int64_t done, std::int64_t total, double elapsed_seconds, double eta_seconds,
              const std::string& extra);
  /// Erases the bar.
  void clear();
  bool enabled() const { return enabled_; }

 private:
  std::string label_;
  bool enabled_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point last_;
};

/// Elapsed time and ETA of a loop over `units` (epochs) with progress inside each unit.
class EtaClock {
 public:
  /// `first` of `units` are already done (a resumed run): they do not count for the rate.
  EtaClock(int first, int units);
  double elapsed() const;
  /// ETA when unit `unit` (0-based) is `fraction` done; < 0 before any progress.
  double eta(int unit, double fraction) const;

 private:
  int first_, units_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace trainsim
