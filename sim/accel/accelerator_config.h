#pragma once
// Reading accelerator and energy-table YAML (configs/accelerators/*.yaml,
// configs/energy/*.yaml) into validated specs, and writing the resolved form.
//
// Errors follow the other configs: one-line UserErrors
//   <file>:<line>:<col>: <key.path>: <what>
// e.g. configs/accelerators/x.yaml:4:9: array.rows: must be >= 1, got 0
#include <string>
#include <vector>

#include "sim/spec/accel_spec.h"

namespace trainsim {

/// Parses an accelerator. `name_or_path` is a path if it contains '/' or ends in .yaml,
/// otherwise a name looked up as <configs root>/accelerators/<name>.yaml. `overrides`
/// ("a.b=value", value parsed as YAML) are applied to the tree before validation; an
/// `energy.<...>` override on an accelerator that names its energy table first inlines it.
AcceleratorSpec load_accelerator(const std::string& name_or_path,
                                 const std::vector<std::string>& overrides = {});

/// Parses an energy table: a path, or a name looked up as <configs root>/energy/<name>.yaml.
EnergyTable load_energy_table(const std::string& name_or_path);

/// The accelerator with every default filled in and its energy table inlined under
/// `energy:`, as YAML that load_accelerator() reads back to an identical spec (all but
/// the `source` fields). Equal specs give byte-identical text.
std::string accelerator_yaml(const AcceleratorSpec& spec);

/// Names of the files shipped in <configs root>/accelerators and <configs root>/energy,
/// sorted.
std::vector<std::string> shipped_accelerator_names();
std::vector<std::string> shipped_energy_names();

}  // namespace trainsim
