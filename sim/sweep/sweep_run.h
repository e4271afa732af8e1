#pragma once
// Running one sweep point, shared by the local workers and the MPI ranks: the point's
// command line, and what its end means (a row: done with its figures, or failed with the
// error its stderr named).
#include <cstddef>
#include <string>
#include <vector>

#include "sim/io/manifest.h"
#include "sim/sweep/sweep_table.h"

namespace trainsim {

/// `run EXPERIMENT --quiet --force --out DIR/points/<id>/run --summary .../result.json
/// --set ...` for point `p` (a command line without the program name, for a point worker);
/// creates the point's directory.
std::vector<std::string> point_command(const SweepSpec& spec, const SweepPoint& p,
                                       const std::string& dir);
/// The command line of a point worker (sim/sweep/point_worker.h): `exe sweep --point-worker`.
std::vector<std::string> worker_command(const std::string& exe);
/// Points a worker runs before it retires (sim/sweep/worker_pool.h); `sweep --isolate`: 1.
inline constexpr std::size_t kPointsPerWorker = 1000;
/// The point's stderr file.
std::string point_stderr(const SweepPoint& p, const std::string& dir);
/// The row of point `p` whose process ended with `exit_code`: done if its result file is
/// there, otherwise failed (error.txt written with the error from its stderr).
SweepRow finish_point(const SweepPoint& p, const std::string& dir, int exit_code);

/// The manifest of a sweep directory (sim/io/manifest.h): its own files, and every file a
/// point of `points` may leave, listed before they exist so that the manifest need not
/// change while points run.
Manifest sweep_manifest(const std::vector<SweepPoint>& points);
/// Removes an unfinished point's files so that it runs again, once no process writes it: a
/// worker of a killed sweep dies with it, but may take a moment (UserError after a while).
void clear_point(const std::string& dir, const SweepPoint& p);

/// A row as one message (MPI) and back; `point` is set by the receiver.
std::string encode_row(const SweepRow& r);
SweepRow decode_row(const std::string& text, const SweepPoint& p);

}  // namespace trainsim
