#pragma once
// A run's checkpoint (DIR/checkpoint.bin while a run is incomplete): everything needed to
// continue after its last completed epoch with results identical to an uninterrupted run:
// the completed epochs' metrics and simulated costs (the reports are rewritten from them),
// the trainer's state (weights, optimizer, technique, shuffle order and RNG) and the
// accelerator session's sums and simulated time. It resumes only the configuration it was
// written for (config.resolved.yaml, by hash) and only with a build of the same version and
// memory layout; anything else is a one-line error.
#include <string>
#include <vector>

#include "sim/train/accel_session.h"
#include "sim/train/run_epoch.h"
#include "sim/train/trainer.h"

namespace trainsim {

/// What a run carries besides the trainer and the session.
struct RunProgress {
  std::vector<RunEpoch> epochs;  ///< completed
  double load_seconds = 0;       ///< dataset load wall time (timing.json)
};

/// The checkpoint's bytes: a format version, the state, and a CRC-32 of everything before it,
/// so a damaged file is refused instead of resuming into different results. `config_yaml` is
/// the text of the run's config.resolved.yaml; `session` is null for numerics-only runs
/// (trainsim train). The caller writes it with the epoch's other files (sim/io/file_set.h).
std::string checkpoint_bytes(const std::string& config_yaml, RunProgress& progress,
                             Trainer& trainer, AcceleratorSession* session);

/// Restores a checkpoint into a trainer and session freshly built from the same config;
/// UserError naming the file if it is damaged, of another format or of another run.
void load_checkpoint(const std::string& path, const std::string& config_yaml, RunProgress& progress,
                     Trainer& trainer, AcceleratorSession* session);

}  // namespace trainsim
