#pragma once
// The experiment's `hype:` key (sim/config/experiment_parser.h, parsed by hype_config.h): a
// Hype-training placement of every op over the experiment's system, or over the GPUs and
// offload devices it names itself, which then are the experiment's system.
#include "sim/config/experiment_parser.h"

namespace trainsim {

const ExperimentSection& hype_section();

}  // namespace trainsim
