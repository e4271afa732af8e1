#pragma once
// An experiment file read into its spec and written back resolved, with every section of an
// experiment (the one list of them, experiment_file.cpp: the experiment's own keys and each
// subsystem's, sim/config/experiment_parser.h).
#include <string>
#include <vector>

#include "sim/config/experiment_parser.h"
#include "sim/spec/specs.h"
// load_network(), which experiments use to read their network, with the network parser.
#include "sim/workload/network_config.h"

namespace trainsim {

/// Every section of an experiment.
const ExperimentSections& experiment_sections();

/// Parses an experiment file, applying `overrides` ("a.b.c=value", value parsed as YAML)
/// to the YAML tree before validation (parse_experiment() with experiment_sections()).
/// `network:` is either a network name, a path to a network file, or an inline mapping, ONNX
/// model or SCALE-Sim topology (sim/interop/network_section.h); `accelerator:` (default
/// adagp_ws180) a name, a path or a mapping (sim/accel/simulation_section.h). A
/// `network.<...>`, `accelerator.<...>` or `system.<...>` override on one given by name or
/// path first inlines its file (and `accelerator.energy.<...>` the accelerator's energy
/// table); errors in inlined nodes still name the file they came from.
ExperimentSpec load_experiment(const std::string& path,
                               const std::vector<std::string>& overrides = {});

/// The experiment with every default filled in and the network and the accelerator (with
/// its energy table) inlined, as YAML that load_experiment() reads back to an identical
/// spec.
std::string resolved_yaml(const ExperimentSpec& spec);

}  // namespace trainsim
