#pragma once
// Parses `pipeline:` of an experiment (sim/spec/system_spec.h; keys in docs/config.md), against
// the schedules this folder registers.
#include "sim/spec/specs.h"
#include "sim/yaml/yaml_reader.h"

namespace trainsim {

/// `node` is `pipeline:` (may be absent: the defaults). Checks the schedule against the
/// system (device count, micro-batches against the batch, stage ranges against the
/// network's layers).
PipelineSpec parse_pipeline(const ConfigNode* node, const ConfigNode& top,
                            const ExperimentSpec& spec);

}  // namespace trainsim
