#include "sim/run/run_kinds.h"

#include <stdexcept>

#include "sim/run/hype_runner.h"
#include "sim/run/system_runner.h"

namespace trainsim {

const std::vector<RunKindInfo>& run_kinds() {
  static const std::vector<RunKindInfo> all = {
      // A hype: over a system (its own, or the one its gpu: and offload: imply) places ops on
      // its devices: Hype's runtime, not a pipeline schedule.
      {"hype",
       "a Hype-training iteration placed op by op on GPUs and offload devices (hype:), "
       "scaled to the run",
       [](const ExperimentSpec& s, bool simulate) { return simulate && s.hype != nullptr; },
       run_hype_experiment,
       [](const ExperimentSpec& s, bool) {
         check_numerics(s);
         return check_hype_experiment(s);
       },
       false},
      {"system",
       "devices of any kind joined by links (system:), a pipeline schedule and replicas over "
       "them",
       [](const ExperimentSpec& s, bool simulate) {
         return simulate && s.system.present() && s.hype == nullptr;
       },
       run_system_experiment,
       [](const ExperimentSpec& s, bool) {
         check_numerics(s);
         return check_system_experiment(s);
       },
       true},
      {"shape-only", "one accelerator, numerics: none: the schedule timed from shapes",
       [](const ExperimentSpec& s, bool) { return s.numerics == "none"; },
       run_shape_only_experiment,
       [](const ExperimentSpec& s, bool) { return check_shape_only_experiment(s); }, false},
      // Last: it claims whatever is left.
      {"run",
       "trains for real, every op timed on one accelerator (trainsim run), or numerics only "
       "(trainsim train, kind train)",
       [](const ExperimentSpec&, bool) { return true; }, run_trained_experiment,
       check_trained_experiment, false},
  };
  return all;
}

const RunKindInfo& run_kind_of(const ExperimentSpec& spec, bool simulate) {
  for (const RunKindInfo& k : run_kinds())
    if (k.claims(spec, simulate)) return k;
  throw std::logic_error("no run kind claims the experiment");  // the last claims all
}

}  // namespace trainsim
