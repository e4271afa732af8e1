#pragma once
// An energy table from an Accelergy energy reference table (ERT.yaml, as `accelergy` writes
// it: ERT: {tables: [{name: <component>, actions: [{name, arguments, energy}]}]}), with an
// explicit map from trainsim's cost entries to (component, action) pairs:
//
//   name: eyeriss_ert
//   unit: normalized            # or pJ (Accelergy's own unit)
//   ert: ert/eyeriss_like_ERT.yaml   # relative to this file
//   per_bits: 16                # the word each ERT action moves
//   map:
//     mac: {component: system.chip.PE.mac, action: mac_random}
//     rf_read: ...  rf_write: ...  noc: ...  buffer_read: ...  buffer_write: ...
//     dram_read: ...  dram_write: ...  vector_op: ...
//   ignore: [system.chip.PE.ifmap_spad]   # ERT components deliberately not used
//   leakage: {per_pe_ns: 0, per_kib_ns: 0}   # optional, as in a plain table
//
// Component names match with their index ranges removed (system.chip.PE[0..167].mac is
// system.chip.PE.mac). Every entry must be mapped, every mapped component and action must be
// in the ERT, and every ERT component must be mapped or ignored: anything else is an error
// naming it.
#include <string>
#include <vector>

#include "sim/spec/accel_spec.h"
#include "sim/yaml/yaml_reader.h"

namespace trainsim {

/// The keys an energy table made from an ERT takes (sim/accel/energy_config.cpp reads the
/// name, unit, description and leakage as for any table).
inline const std::vector<std::string> kErtTableKeys = {
    "name", "description", "unit", "ert", "per_bits", "map", "ignore", "leakage"};
/// Fills `t`'s cost entries from the ERT `m` (a table with an `ert` key) names; `source` is
/// the file holding `m` (relative `ert` paths resolve against its folder).
void read_ert_costs(const ConfigMap& m, const std::string& source, EnergyTable& t);

/// A component name without its index ranges.
std::string ert_component_base(const std::string& name);

}  // namespace trainsim
