#pragma once
// The experiment's keys of an accelerator run (sim/config/experiment_parser.h): `accelerator:`
// (default adagp_ws180; a name, a path or a mapping, accelerator_config.h), `dataflow:` (the
// accelerator's own by default), `memory:` and `residency:` (the memory model and its residency
// planning), `technique:` (sim/techniques/technique_config.h) and `fidelity:` (fast, cycle).
// An `accelerator.<...>` override
// on an accelerator given by name or path first inlines its file (and
// `accelerator.energy.<...>` its energy table); a `technique.<...>` override on a technique
// given by name (`specbp@0.25`) first expands it into its mapping.
#include "sim/config/experiment_parser.h"

namespace trainsim {

const ExperimentSection& simulation_section();

}  // namespace trainsim
