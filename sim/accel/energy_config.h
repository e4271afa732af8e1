#pragma once
// Parsing and emitting one energy table (the `energy:` part of an accelerator, or a file
// in configs/energy/), shared by load_energy_table() and load_accelerator().
#include <yaml-cpp/yaml.h>

#include <string>

#include "sim/spec/accel_spec.h"
#include "sim/yaml/yaml_reader.h"

namespace trainsim {

/// Validates the mapping at `node` into an EnergyTable. `default_name` is used when the
/// table has no `name:`; `source` is recorded as EnergyTable::source.
EnergyTable parse_energy_table(const ConfigNode& node, const std::string& default_name,
                               const std::string& source);

/// Writes `table` as a mapping that parse_energy_table() reads back to the same values.
void emit_energy_table(YAML::Emitter& out, const EnergyTable& table);

/// True if `table` has a MAC entry for operands of `word_bits` bits (an entry at least
/// that wide; EnergyTable::mac is sorted by width).
bool has_mac_energy(const EnergyTable& table, int word_bits);

}  // namespace trainsim
