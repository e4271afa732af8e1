#pragma once
// The experiment's `system:` key (sim/config/experiment_parser.h): the devices a run places its
// work on and the links between them (system_config.h); absent or `none`, one device. A
// `system.<...>` override on a system given by name or path first inlines its file.
#include "sim/config/experiment_parser.h"

namespace trainsim {

const ExperimentSection& system_section();

}  // namespace trainsim
