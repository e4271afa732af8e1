#pragma once
// The experiment's `network:` key (sim/config/experiment_parser.h): a network name (looked up
// as <configs root>/networks/<name>.yaml, or relative to the experiment's folder as
// ../networks/<name>.yaml), a path to a network file, an inline mapping, or another tool's
// model: `{onnx: FILE}` (onnx_network.h) or `{scalesim_topology: FILE}` (scalesim_inputs.h).
// A `network.<...>` override on a network given by name or path first inlines its file;
// errors in the inlined nodes still name that file.
#include "sim/config/experiment_parser.h"

namespace trainsim {

const ExperimentSection& network_section();

}  // namespace trainsim
