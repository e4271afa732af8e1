#include "sim/run/experiment_file.h"

#include "sim/accel/simulation_section.h"
#include "sim/devices/system_section.h"
#include "sim/hype/hype_section.h"
#include "sim/interop/network_section.h"
#include "sim/optim/training_section.h"
#include "sim/pipeline/pipeline_section.h"

namespace trainsim {

const ExperimentSections& experiment_sections() {
  static const ExperimentSections all = {
      // Parse order: the system's devices take the accelerator run's settings, and a pipeline
      // and Hype's placement are checked against the system. Of two bad keys, the earlier
      // section's is the error.
      {&name_section(), &numerics_section(), &network_section(), &dataset_section(),
       &training_section(), &simulation_section(), &system_section(), &pipeline_section(),
       &hype_section(), &output_section()},
      // Emit order: the resolved file's layout (Hype's settings before the system they imply).
      {&name_section(), &network_section(), &dataset_section(), &training_section(),
       &simulation_section(), &numerics_section(), &hype_section(), &system_section(),
       &pipeline_section(), &output_section()},
      // As an unknown key's error lists them: the older keys first.
      {"name", "network", "dataset", "training", "output", "accelerator", "dataflow", "technique",
       "fidelity", "numerics", "memory", "residency", "system", "pipeline", "hype"},
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
