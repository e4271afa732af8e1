#pragma once
// The head every stats.json starts with: which kind of run wrote it and which version of the
// file's layout, so that readers (tools/plot, the Python module, scripts) branch on what the
// file says it is instead of guessing from which other files lie beside it.
#include <string>

#include <nlohmann/json.hpp>

namespace trainsim {

/// The kinds of run that write a results directory with a stats.json.
enum class RunKind {
  kTrain,      ///< `trainsim train`: numerics only, no accelerator
  kRun,        ///< `trainsim run` on one accelerator, trained for real
  kShapeOnly,  ///< `trainsim run` with `numerics: none`: shapes timed, nothing trained
  kSystem,     ///< a run on a system of devices (pipeline)
  kHype,       ///< a Hype-training placement run on GPUs and offload devices
  kReplay,     ///< `trainsim replay`: Chakra traces run on a system
};

/// The layout of a results directory. 1: stats.json without "kind"; 2: "kind",
/// "schema_version" and "trainsim_version" first; 3: every kind's epochs.csv opens with the
/// same columns (sim/report/epoch_table.h).
inline constexpr int kStatsSchemaVersion = 3;

/// "train", "run", "shape-only", "system", "hype" or "replay".
const char* run_kind_name(RunKind kind);

/// {"kind": ..., "schema_version": ..., "trainsim_version": ..., "experiment": name}, the
/// first keys of a stats.json.
nlohmann::ordered_json stats_header(RunKind kind, const std::string& experiment);

}  // namespace trainsim
