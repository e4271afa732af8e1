#pragma once
// Node-level accelerator parsing and emitting, shared by load_accelerator() (a whole file) and
// load_experiment() (the `accelerator:` key, which may be a file, an inline mapping, or a
// file inlined for --set overrides). Error key paths follow the node's path, so the same
// code reports `array.rows` in an accelerator file and `accelerator.array.rows` in an
// experiment.
#include <yaml-cpp/yaml.h>

#include <optional>
#include <string>
#include <vector>

#include "sim/spec/accel_spec.h"
#include "sim/yaml/yaml_reader.h"

namespace trainsim {

/// Where an accelerator mapping came from, for the fields the mapping does not spell out.
struct AcceleratorNodeSource {
  /// File whose folder relative `energy:` paths (and ../energy/<name>.yaml) resolve against:
  /// the accelerator's file, or the experiment's for an inline accelerator.
  std::string file;
  std::string default_name;  ///< AcceleratorSpec::name when the mapping has no `name:`
  std::string source;        ///< recorded as AcceleratorSpec::source
  /// Set when an override inlined the energy table under `energy:` from this file: the
  /// table's nodes carry that file's lines, so its errors must name it.
  std::optional<std::string> energy_inlined_from;
};

/// A registered memory model's name at `node` (`memory:` of an accelerator or experiment).
std::string parse_memory_model(const ConfigNode& node);

/// Validates the accelerator mapping at `node` (errors at node.child_path(...)).
AcceleratorSpec parse_accelerator_node(const ConfigNode& node, const AcceleratorNodeSource& from);

/// An accelerator another config file (`referrer`) refers to: a name (<configs
/// root>/accelerators/<name>.yaml, then <referrer dir>/../accelerators/<name>.yaml), a path
/// (relative to the referrer's folder, then to the cwd) or an inline mapping. Errors name the
/// node (a system's device entry, a device file's `accelerator:`).
AcceleratorSpec parse_accelerator_ref(const ConfigNode& node, const std::string& referrer);

/// Prepares the accelerator tree `accel` for an override whose key path, relative to the
/// accelerator, is `segments`: if it descends into `energy.<...>` and the table is given
/// by name or path (or left to the default), replaces it by the table file's content so the
/// override has a tree to write into, and returns that file; otherwise returns nullopt.
/// `at` is the accelerator's cursor (for errors about the table reference); `file` as in
/// AcceleratorNodeSource::file.
std::optional<std::string> inline_energy_for_override(YAML::Node accel,
                                                      const std::vector<std::string>& segments,
                                                      const ConfigNode& at,
                                                      const std::string& file);

/// Writes the accelerator as a mapping with every default filled in and the energy table
/// inlined, which parse_accelerator_node() reads back to the same values (accelerator_yaml()
/// and the experiment's resolved_yaml() both use it).
void emit_accelerator(YAML::Emitter& out, const AcceleratorSpec& spec);

}  // namespace trainsim
