#pragma once
// One experiment, start to finish: load the data, train epoch by epoch (optionally timing
// every op on the simulated accelerator), print progress and per-epoch lines, and write the
// output directory. Shared by `trainsim train` (numerics only), `trainsim run`,
// `trainsim compare` and `trainsim validate` (which stops before the first batch).
//
// The results directory is staged (sim/io/staged_dir.h) and rewritten after every
// epoch together with a checkpoint (sim/train/checkpoint.h). When the run ends, it appears
// complete; when it is interrupted or fails after some epochs, it appears with those epochs,
// marked incomplete: an INCOMPLETE file saying how to continue, "status": "incomplete" in
// stats.json, and checkpoint.bin, from which --resume continues.
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "sim/spec/specs.h"

namespace trainsim {

struct RunOptions {
  bool simulate = false;  ///< time every op on spec.sim's accelerator (trainsim run)
  bool quiet = false;     ///< only the final line
  bool force = false;     ///< replace an existing results directory
  bool report = true;     ///< write report.html into the results directory
  bool resume = false;    ///< spec.output.dir holds an incomplete run to continue
  std::string label;      ///< leads the progress bar, e.g. "variant 2/4 os"
  /// One line per epoch on stderr when it is not a terminal (where no bar is drawn); for
  /// runs that print no epoch table of their own (compare).
  bool epoch_lines = false;
  bool final_line = true;       ///< print the "final: ..." line
  bool keep_incomplete = true;  ///< on failure, keep completed epochs (compare: no)
  /// Write Chakra execution traces of the run into this directory (systems of devices).
  std::string chakra_dir;
};

/// What `compare` needs from a finished run.
struct RunResult {
  /// Per epoch: test accuracy, simulated training seconds, seconds per sample step.
  struct Epoch {
    double test_accuracy = 0, seconds = 0, step_seconds = 0, hit_rate = -1;
  };
  std::vector<Epoch> epochs;
  double clock_ghz = 1;
  double test_accuracy = 0;
  /// Training cycles, all epochs, at the clock of the (first) accelerator; none for a system
  /// whose devices have no common clock (hype:), which reports seconds only.
  std::optional<std::int64_t> cycles;
  double seconds = 0;        ///< simulated training time: what speedups compare
  double energy = 0;         ///< in the energy table's unit
  double memory_energy = 0;  ///< of it: global buffer and DRAM accesses (the paper's figure)
  bool has_accuracy = true;  ///< false for shape-only runs (numerics: none)
  std::string energy_unit;
  std::int64_t dram_bytes = 0;
  double utilization = 0;  ///< `util`: MACs / (PEs x training cycles, stalls included)
  /// The run has a PE array to be utilized (a system of GPUs and FPGAs has none: `util` is
  /// "-" in compare's table, 0 in its files).
  bool has_utilization = true;
  double compute_utilization = 0;  ///< `compute_util`: the same over the arrays' busy cycles
  /// Runs on a hype: system (whose energy is in J): the system's average and peak draw, W, and
  /// the power samples over its cap (NaN for other runs).
  double avg_w = std::numeric_limits<double>::quiet_NaN();
  double peak_w = std::numeric_limits<double>::quiet_NaN();
  double violations = std::numeric_limits<double>::quiet_NaN();
};

/// Runs `spec` as the kind of run it is (sim/run/run_kinds.h): trains (numerics: float),
/// times the schedule from shapes (numerics: none), on a system of devices or a hype:
/// system.
RunResult run_experiment(const ExperimentSpec& spec, const RunOptions& options);
/// Everything a run does before its first batch (data, network against data, optimizer,
/// technique, accelerator session, the technique's storage against the buffer), nothing
/// after. Returns a one-line summary of what would run.
std::string check_experiment(const ExperimentSpec& spec, bool simulate);

// The kinds' own halves (one file each; run_kinds.cpp lists them).
/// Trains on one accelerator (trainsim run) or without one (trainsim train).
RunResult run_trained_experiment(const ExperimentSpec& spec, const RunOptions& options);
std::string check_trained_experiment(const ExperimentSpec& spec, bool simulate);
/// numerics: none on one accelerator (sim/run/shape_only_runner.cpp).
RunResult run_shape_only_experiment(const ExperimentSpec& spec, const RunOptions& options);
std::string check_shape_only_experiment(const ExperimentSpec& spec);
/// Loads the data and builds the numerics of a run that trains, as its first batch would
/// (the systems' checks: their devices are checked by their own kinds).
void check_numerics(const ExperimentSpec& spec);

/// The experiment of the incomplete run in `dir` (its config.resolved.yaml, writing to
/// `dir`), for --resume; UserError if `dir` holds no incomplete run.
ExperimentSpec load_resumable_experiment(const std::string& dir, const std::string& command);

/// Notes about the experiment the header prints (e.g. technique keys an override dropped).
void print_notes(const ExperimentSpec& spec);

}  // namespace trainsim
