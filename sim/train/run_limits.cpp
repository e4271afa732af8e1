#include "sim/train/run_limits.h"

#include <cstdio>
#include <string>

#include "sim/core/error.h"
#include "sim/techniques/technique.h"

namespace trainsim {

void run_exceeds_counters(const CounterOverflow& overflow, const ExperimentSpec& spec,
                          const RunScale& scale) {
  const bool cycles = overflow.counter() == "cycles";
  const std::string more = (cycles ? "take more cycles" : "count more " + overflow.counter()) +
                           " than the counters hold (" + overflow.limit() + ")";
  const std::string run = "network '" + spec.network.name + "' on " + spec.dataset.name;
  if (scale.epoch > 1) {
    // Every epoch adds to the sums, so the epochs before the one that overflowed fit.
    const int fit = scale.epoch - 1;
    throw UserError("training.epochs: " + std::to_string(spec.training.epochs) + " epochs of " +
                    run + " " + more + ": the sum passes it in epoch " +
                    std::to_string(scale.epoch) + ", so at most " + std::to_string(fit) + " epoch" +
                    (fit == 1 ? "" : "s") + " fit");
  }
  // One epoch is already too large: name what sizes an epoch, the technique's own model first
  // when it has one (ADA-GP's largest predictor on an ImageNet network is what reaches this).
  const TechniqueInfo& info = technique_info(spec.sim.technique);
  const bool model = scale.technique_model && info.epoch_size_hint != nullptr;
  std::pair<std::string, std::string> hint;
  if (model) hint = info.epoch_size_hint(spec.sim.technique);
  std::string msg = (model ? hint.first : std::string("dataset.train_limit")) + ": ";
  msg += "one epoch of " + run + " (" + std::to_string(scale.train_samples) +
         " training samples) would " + more + ": ";
  if (model) msg += hint.second + ", or ";
  msg += "fewer samples (dataset.train_limit)";
  if (cycles) {
    char figures[160];
    std::snprintf(figures, sizeof figures,
                  ", or faster memory (accelerator.dram.bandwidth_gbps %g at accelerator.clock_ghz "
                  "%g)",
                  spec.sim.accelerator.dram.bandwidth_gbps, spec.sim.accelerator.clock_ghz);
    msg += figures;
  }
  throw UserError(msg);
}

}  // namespace trainsim
