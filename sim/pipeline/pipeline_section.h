#pragma once
// The experiment's `pipeline:` key (sim/config/experiment_parser.h, parsed by
// pipeline_config.h): how a system's devices share the network's stages. Without a system, or
// under `hype:` (which places every op, not stages), it is checked and noted as unused.
#include "sim/config/experiment_parser.h"

namespace trainsim {

const ExperimentSection& pipeline_section();

}  // namespace trainsim
