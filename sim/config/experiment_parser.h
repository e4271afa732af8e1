#pragma once
// Reading an experiment file into a validated ExperimentSpec, and writing the resolved form,
// with the sections it is given. An experiment's top-level keys belong to sections: each
// subsystem parses, checks and writes back its own keys (the network's in sim/interop, the
// training loop's in sim/optim, the accelerator run's in sim/accel, the system's in
// sim/devices, the pipeline's in sim/pipeline, Hype's in sim/hype) and this parser knows none
// of them: it loads the file, applies the --set overrides (asking the section that owns the
// key to prepare its tree first), rejects keys no section owns and hands the mapping to each
// section in turn. The list of sections is one registry above them all
// (sim/run/experiment_file.cpp).
//
// Every problem is a UserError whose message names the file, the line and column, and the
// key path, e.g.
//   configs/experiments/x.yaml:12:5: training.batch_size: must be >= 1, got -3
#include <yaml-cpp/yaml.h>

#include <map>
#include <string>
#include <vector>

#include "sim/spec/specs.h"
#include "sim/yaml/overrides.h"
#include "sim/yaml/yaml_reader.h"

namespace trainsim {

/// Files that --set overrides inlined into the experiment tree, by the key path whose value
/// they became ("network", "accelerator", "accelerator.energy", "system"). The inlined nodes
/// still carry those files' lines, so errors in them must name the file, not the experiment.
using InlinedFiles = std::map<std::string, std::string>;

/// What a section may do before an override of one of its keys is applied.
struct OverrideStep {
  YAML::Node root;          ///< the experiment tree (a mapping)
  Override& over;           ///< the override; its value may be rewritten
  const std::string& path;  ///< the experiment file
  ConfigOrigin& origin;     ///< which key paths overrides set (a key inlined is no longer one)
  InlinedFiles& inlined;
  std::vector<std::string>& notes;  ///< ExperimentSpec::notes
};

/// What a section's parser is given besides the experiment's mapping.
struct SectionInput {
  const std::string& path;  ///< the experiment file (relative references resolve from it)
  const InlinedFiles& inlined;
};

class ExperimentSection {
 public:
  virtual ~ExperimentSection() = default;
  /// The experiment's top-level keys it reads.
  virtual std::vector<std::string> keys() const = 0;
  /// Before `--set KEY...=value` on one of its keys: e.g. a key that names a file is inlined
  /// so that `KEY.x=v` has a tree to descend into (recorded in step.inlined).
  virtual void before_override(OverrideStep& step) const { (void)step; }
  /// Reads its keys of `top` into `spec` (sections earlier in the parse order have filled
  /// theirs).
  virtual void parse(const ConfigMap& top, const SectionInput& in, ExperimentSpec& spec) const = 0;
  /// Checks that need every section's keys, after all have parsed.
  virtual void check(const ConfigMap& top, const ExperimentSpec& spec) const {
    (void)top, (void)spec;
  }
  /// Writes its keys with every default filled in, so that parse() reads them back to the same
  /// spec.
  virtual void emit(YAML::Emitter& out, const ExperimentSpec& spec) const = 0;
};

/// The sections of an experiment: in the order they parse (a section may read what an earlier
/// one parsed; of two bad keys, the earlier section's is reported), in the order the resolved
/// file writes them, and their keys in the order an unknown key's error lists them (every key
/// of every section, once).
struct ExperimentSections {
  std::vector<const ExperimentSection*> parse_order;
  std::vector<const ExperimentSection*> emit_order;
  std::vector<std::string> key_order;
};

/// Parses an experiment file with `sections`, applying `overrides` ("a.b.c=value", value
/// parsed as YAML) to the YAML tree before validation. std::logic_error if key_order and the
/// sections' keys differ.
ExperimentSpec parse_experiment(const std::string& path, const std::vector<std::string>& overrides,
                                const ExperimentSections& sections);

/// The experiment as `sections` write it: every default filled in, as YAML that
/// parse_experiment() reads back to an identical spec.
std::string emit_experiment(const ExperimentSpec& spec, const ExperimentSections& sections);

/// The experiment's own keys, which belong to no subsystem: `name` (default: the file's stem),
/// `numerics` (float: train for real; none: time the schedule from shapes), `dataset` (which
/// data; whether the name is a dataset is the dataset registry's call, made when loading) and
/// `output` (the results directory, default runs/<name>).
const ExperimentSection& name_section();
const ExperimentSection& numerics_section();
const ExperimentSection& dataset_section();
const ExperimentSection& output_section();

}  // namespace trainsim
