#pragma once
// A technique's storage that lives in the accelerator's global buffer (speculative backprop's
// per-label store with `store: buffer`) must fit in it: checked before a run on that
// accelerator writes anything.
#include "sim/spec/specs.h"
#include "sim/train/trainer.h"

namespace trainsim {

/// UserError naming both sizes unless `trainer`'s technique's buffer storage fits the global
/// buffer of spec.sim.accelerator.
void check_buffer_storage(const ExperimentSpec& spec, const Trainer& trainer);

}  // namespace trainsim
