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

/// The energy table in `file`, as an accelerator's `energy:` at `path` (its errors name
/// both): the file's text parsed by parse_energy_table, the stem of its name the default name.
/// A process keeps each table it parsed with the text it came from and parses a file again
/// only when its text changed (a sweep's worker reads the same table for every point); a
/// table built from an Accelergy ERT, which is another file, is parsed every time.
EnergyTable parse_energy_file(const std::string& file, const std::string& path);

/// Writes `table` as a mapping that parse_energy_table() reads back to the same values.
void emit_energy_table(YAML::Emitter& out, const EnergyTable& table);

/// True if `table` has a MAC entry for operands of `word_bits` bits (an entry at least
/// that wide; EnergyTable::mac is sorted by width).
bool has_mac_energy(const EnergyTable& table, int word_bits);

}  // namespace trainsim
