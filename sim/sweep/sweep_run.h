#pragma once
// Running one sweep point, shared by the local workers and the MPI ranks: the point's
// command line, and what its end means (a row: done with its figures, or failed with the
// error its stderr named).
#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

#include "sim/io/manifest.h"
#include "sim/sweep/sweep_table.h"

namespace trainsim {

/// The points of a list still to run: every point not marked finished, kept as a bit a
/// point rather than a list of positions, and handed out to lanes (the workers, or MPI
/// ranks) in runs of consecutive points. Consecutive points differ in the last axes only,
/// so a worker that runs a run of them prices the ops the outer axes decide once, from its
/// cost memo, instead of every worker pricing them again. Runs shrink as the sweep nears its
/// end (a share of what is left: guided self-scheduling), and a lane whose run is over takes
/// the second half of the longest run left when no new one is, so no lane idles while
/// another has points to run.
class Pending {
 public:
  /// `lanes`: how many take points at once (more may appear; runs are sized for these).
  /// `group`: runs start and end on multiples of it where they can (PointList::group: points
  /// that differ only in the sweep's last axis, such as a design's buffer sizes, whose
  /// mapping searches start from one another's, sim/accel/mapping_hints.h).
  explicit Pending(std::size_t points, std::size_t lanes = 1, std::size_t group = 1)
      : finished_(points, false),
        runs_(std::max<std::size_t>(lanes, 1)),
        untaken_(points),
        group_(std::max<std::size_t>(group, 1)) {}
  /// Before the first take(): the k-th point finished in an earlier run.
  void mark_finished(std::size_t k);
  /// Points to run in this invocation (fixed once marking is over).
  std::size_t total() const { return finished_.size() - marked_; }
  /// Points not yet handed out.
  std::size_t untaken() const { return untaken_; }
  /// The next point for `lane` (0 ..), or false if none is left anywhere.
  bool take(std::size_t& k, std::size_t lane = 0);
  /// Hands out nothing more (an interrupted sweep).
  void drop();

 private:
  struct Run {
    std::size_t next = 0, end = 0;
  };
  std::vector<bool> finished_;  ///< finished before, or handed out
  std::vector<Run> runs_;       ///< per lane
  std::size_t cursor_ = 0, untaken_, marked_ = 0, group_;
};

/// How every point of a sweep runs.
struct PointRun {
  /// Whether the point writes its own report.html as it finishes (--point-reports all);
  /// false adds --no-report (the sweep writes the pages of the front's points and the
  /// baseline's when it ends, `trainsim report` any other's).
  bool report = true;
  /// The op-cost memo the points share (--memo, sim/io/memo_store.h); empty: none.
  std::string memo;
};

/// `run EXPERIMENT --quiet --force --out DIR/points/<id>/run --summary .../result.json
/// --set ...` for point `p` (a command line without the program name, for a point worker);
/// creates the point's directory and its manifest.
std::vector<std::string> point_command(const SweepSpec& spec, const SweepPoint& p,
                                       const std::string& dir, const PointRun& how = {});
/// The command line of a point worker (sim/sweep/point_worker.h): `exe sweep --point-worker`.
std::vector<std::string> worker_command(const std::string& exe);
/// Points a worker runs before it retires (sim/sweep/worker_pool.h); `sweep --isolate`: 1.
inline constexpr std::size_t kPointsPerWorker = 1000;
/// The point's stderr file.
std::string point_stderr(const SweepPoint& p, const std::string& dir);
/// The row of point `p` whose process ended with `exit_code`: done if its result file is
/// there, otherwise failed (error.txt written with the error from its stderr).
SweepRow finish_point(const SweepPoint& p, const std::string& dir, int exit_code);

/// The manifest of a sweep directory (sim/io/manifest.h): its own files and points/; each
/// point's directory holds a manifest of its own (point_command writes it).
Manifest sweep_manifest();
/// Removes an unfinished point's files so that it runs again, once no process writes it: a
/// worker of a killed sweep dies with it, but may take a moment (UserError after a while).
void clear_point(const std::string& dir, const SweepPoint& p);

/// A row as one message (MPI) and back; `point` is set by the receiver.
std::string encode_row(const SweepRow& r);
SweepRow decode_row(const std::string& text, const SweepPoint& p);

}  // namespace trainsim
