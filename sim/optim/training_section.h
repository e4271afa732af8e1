#pragma once
// The experiment's `training:` key (sim/config/experiment_parser.h): epochs, batch size, seed,
// shuffling, numerics threads and the optimizer, whose own keys its registry entry lists
// (optimizer_registry.h, optimizer_fields.h).
#include "sim/config/experiment_parser.h"

namespace trainsim {

const ExperimentSection& training_section();

}  // namespace trainsim
