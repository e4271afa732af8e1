#include "sim/run/experiment_file.h"

#include "sim/accel/simulation_section.h"
#include "sim/devices/system_section.h"
#include "sim/hype/hype_section.h"
#include "sim/interop/network_section.h"
#include "sim/optim/training_section.h"
#include "sim/pipeline/pipeline_section.h"

namespace trainsim {

const ExperimentSections& experiment_sections() {
  // Parse order: the system's devices take the accelerator run's settings, and a pipeline
  // and Hype's placement are checked against the system. Errors about an unknown key list
  // the keys in this order.
  // Emit order: the resolved file's layout (Hype's settings before the system they imply).
  static const ExperimentSections all = {
      {&name_section(), &network_section(), &dataset_section(), &training_section(),
       &output_section(), &simulation_section(), &system_section(), &pipeline_section(),
       &hype_section()},
      {&name_section(), &network_section(), &dataset_section(), &training_section(),
       &simulation_section(), &hype_section(), &system_section(), &pipeline_section(),
       &output_section()},
  };
  return all;
}

ExperimentSpec load_experiment(const std::string& path, const std::vector<std::string>& overrides) {
  return parse_experiment(path, overrides, experiment_sections());
}

std::string resolved_yaml(const ExperimentSpec& spec) {
  return emit_experiment(spec, experiment_sections());
}

}  // namespace trainsim
