#pragma once
// Parses `system:` of an experiment and system files (sim/spec/system_spec.h); `pipeline:` is
// sim/pipeline/pipeline_config.h.
#include <memory>
#include <string>

#include "sim/devices/device_model.h"
#include "sim/spec/specs.h"
#include "sim/yaml/yaml_reader.h"

namespace trainsim {

/// `node` is the experiment's `system:` value: a preset name (configs/systems/<name>.yaml),
/// a path to a system file, or a mapping. Device accelerators default to `sim`'s.
SystemSpec parse_system(const ConfigNode& node, const std::string& experiment_path,
                        const SimulationSpec& sim);

/// The system file `node` (a name or a path, as `system:` takes) refers to from the
/// experiment at `experiment_path`; a UserError at `node` naming what was tried if none.
std::string find_system_file(const ConfigNode& node, const std::string& experiment_path);

/// The content of the system file `file`, parsed as that file: relative paths in it from the
/// file's folder, its name the file's stem unless it has one. `node` may be the file's tree
/// inlined into an experiment (for --set system.<key>), its lines still the file's.
SystemSpec parse_system_file_tree(const ConfigNode& node, const std::string& file,
                                  const SimulationSpec& sim);

/// A shipped system preset by name (or a system file by path), its `devices: N` entries on
/// the default accelerator; for listing.
SystemSpec load_system(const std::string& ref);

/// The device a system's entry is as a device model prices ops: its model, or for an
/// accelerator entry (simulated as a single run by a system run) the `accelerator` kind's
/// model of that accelerator and dataflow (sim/devices/accel_device.h).
std::shared_ptr<const DeviceModelSpec> entry_device_model(const DeviceSpec& d);

/// A system's `device:` entry at `ref` as its DeviceSpec: `dev` (parse_device_ref(ref)) as the
/// entry's model, or, for one of trainsim's accelerators, that accelerator and dataflow
/// (simulated as a single run simulates it); `sim` gives the accelerator fields of a model entry.
DeviceSpec device_entry(const std::shared_ptr<const DeviceModelSpec>& dev, const ConfigNode& ref,
                        const SimulationSpec& sim);

/// Stems of the shipped system presets.
std::vector<std::string> shipped_system_names();

}  // namespace trainsim
