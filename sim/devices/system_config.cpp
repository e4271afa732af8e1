#include "sim/devices/system_config.h"

#include <filesystem>
#include <memory>

#include "dataflows/registry.h"
#include "models/platform/interconnect.h"
#include "models/platform/topology.h"
#include "sim/accel/accel_lookup.h"
#include "sim/accel/accelerator_config.h"
#include "sim/accel/accelerator_parse.h"
#include "sim/core/error.h"
#include "sim/core/named_registry.h"
#include "sim/devices/accel_device.h"
#include "sim/devices/device_config.h"
#include "sim/devices/kinds.h"
#include "sim/yaml/key_ranges.h"
#include "sim/yaml/yaml_file.h"

namespace trainsim {

namespace {

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

std::string topology_names() {
  std::vector<std::string> names;
  for (const Topology& t : topologies()) names.push_back(t.name);
  return joined(names);
}

// A device of the experiment's own accelerator and dataflow (no device model), which an entry
// then overrides.
DeviceSpec experiment_device(const SimulationSpec& sim) {
  DeviceSpec d;
  d.accelerator = sim.accelerator;
  d.dataflow = sim.dataflow;
  return d;
}

LinkSpec parse_link_figures(const ConfigMap& m, LinkSpec l) {
  if (auto v = m.get("bandwidth_gbps"))
    l.bandwidth_gbps = v->as_double_in(key_range::kBandwidthGbps);
  if (auto v = m.get("latency_ns")) l.latency_ns = v->as_double_in(key_range::kLatencyNs);
  if (auto v = m.get("pj_per_bit")) l.pj_per_bit = v->as_double_non_negative();
  return l;
}

// An entry that names its accelerator (or takes the experiment's) and maybe a dataflow.
void parse_accelerator_entry(const ConfigMap& e, const ConfigNode& entry, const std::string& file,
                             DeviceSpec& d) {
  if (auto v = e.get("accelerator")) {
    d.accelerator = parse_accelerator_ref(*v, file);
    d.dataflow = d.accelerator.dataflow;
  }
  if (auto v = e.get("dataflow")) {
    d.dataflow = v->as_nonempty_string();
    if (find_dataflow(d.dataflow) == nullptr)
      v->fail("unknown dataflow '" + d.dataflow + "' (known: " + registry_names(dataflows()) + ")");
  } else if (find_dataflow(d.dataflow) == nullptr) {
    entry.fail("accelerator '" + d.accelerator.name + "' uses dataflow '" + d.dataflow +
               "', which is not registered (known: " + registry_names(dataflows()) + ")");
  }
}

SystemSpec parse_system_map(const ConfigNode& node, const std::string& file,
                            const SimulationSpec& sim) {
  ConfigMap m = node.as_map();
  m.allow_only({"name", "devices", "topology", "link", "links"});
  SystemSpec s;
  if (auto v = m.get("name")) s.name = v->as_nonempty_string();
  const ConfigNode devices = m.require("devices");
  if (devices.is_scalar()) {
    // `devices: 4`: that many of the experiment's accelerator.
    const int n = devices.as_int_in(key_range::kDevices);
    for (int i = 0; i < n; ++i) s.devices.push_back(experiment_device(sim));
  } else {
    if (!devices.is_sequence())
      devices.fail("expected a device count or a list of devices, got " + devices.describe());
    for (const ConfigNode& entry : devices.as_sequence()) {
      ConfigMap e = entry.as_map();
      e.allow_only({"accelerator", "count", "dataflow", "device"});
      DeviceSpec d = experiment_device(sim);
      d.where = entry.path();
      if (auto v = e.get("device")) {
        for (const char* other : {"accelerator", "dataflow"})
          if (e.get(other))
            e.get(other)->fail(std::string("give either `device:` or `") + other +
                               ":` in one entry, not both");
        d = device_entry(parse_device_ref(*v, file), *v, sim);
        d.where = entry.path();
      } else {
        parse_accelerator_entry(e, entry, file, d);
      }
      int count = 1;
      if (auto v = e.get("count")) count = v->as_int_in(key_range::kDevices);
      for (int i = 0; i < count; ++i) s.devices.push_back(d);
    }
    if (s.devices.empty()) devices.fail("a system needs at least one device");
  }
  const int n = static_cast<int>(s.devices.size());
  if (n > key_range::kDevices.max)
    devices.fail("at most " + std::to_string(key_range::kDevices.max) + " devices (got " +
                 std::to_string(n) + ")");
  const Topology* topology = find_topology(s.topology);
  if (auto v = m.get("topology")) {
    s.topology = v->as_nonempty_string();
    topology = find_topology(s.topology);
    if (topology == nullptr)
      v->fail("unknown topology '" + s.topology + "' (known: " + topology_names() + ")");
  }
  if (auto v = m.get("link")) {
    ConfigMap l = v->as_map();
    l.allow_only({"bandwidth_gbps", "latency_ns", "pj_per_bit"});
    s.link = parse_link_figures(l, s.link);
  }
  auto links = m.get("links");
  if (topology->build != nullptr) {
    if (links)
      links->fail("system.links is only for topology: custom (topology is " + s.topology + ")");
    s.net = topology->build(n, s.link);
  } else {
    if (!links) m.node().fail("topology: custom needs a list of links under `links`");
    s.net.devices = n;
    for (const ConfigNode& entry : links->as_sequence()) {
      ConfigMap e = entry.as_map();
      e.allow_only({"between", "bandwidth_gbps", "latency_ns", "pj_per_bit"});
      const ConfigNode ends = e.require("between");
      const std::vector<ConfigNode> pair = ends.as_sequence();
      if (pair.size() != 2) ends.fail("expected two device indices, e.g. [0, 1]");
      LinkSpec l = parse_link_figures(e, s.link);
      l.a = pair[0].as_int_in(key_range::kDeviceIndex);
      l.b = pair[1].as_int_in(key_range::kDeviceIndex);
      for (int end : {l.a, l.b})
        if (end < 0 || end >= n)
          ends.fail("device " + std::to_string(end) + " does not exist (the system has " +
                    std::to_string(n) + " devices, 0.." + std::to_string(n - 1) + ")");
      if (l.a == l.b) ends.fail("a link joins two different devices");
      l.key = "system.links." + std::to_string(s.net.links.size());
      s.net.links.push_back(l);
    }
  }
  try {
    Interconnect check(s.net);  // every pair of devices must be connected
  } catch (const UserError& e) {
    m.node().fail(e.what());
  }
  return s;
}

}  // namespace

DeviceSpec device_entry(const std::shared_ptr<const DeviceModelSpec>& dev, const ConfigNode& ref,
                        const SimulationSpec& sim) {
  DeviceSpec d = experiment_device(sim);
  d.where = ref.path();
  if (const AccelDeviceSpec* a = dev->as_accelerator()) {
    // One of trainsim's accelerators: simulated as in a single run.
    d.accelerator = a->accelerator;
    d.dataflow = a->dataflow;
  } else {
    d.model = dev;
    d.model_name = dev->name;
    d.model_kind = dev->kind;
  }
  // config.resolved.yaml names the device as the entry did: a file by the path it was read
  // from (the run's directory may be elsewhere), an inline mapping in full.
  d.model_ref = ref.is_scalar() ? std::filesystem::absolute(dev->source).lexically_normal().string()
                                : YAML::Dump(ref.yaml());
  return d;
}

std::vector<std::string> shipped_system_names() {
  return shipped_config_names("systems");
}

std::shared_ptr<const DeviceModelSpec> entry_device_model(const DeviceSpec& d) {
  if (d.model) return d.model;
  auto a = std::make_shared<AccelDeviceSpec>();
  a->accelerator = d.accelerator;
  a->dataflow = d.dataflow;
  a->name = d.accelerator.name;
  a->kind = accelerator_device_kind().name();
  a->source = d.accelerator.source;
  return a;
}

SystemSpec load_system(const std::string& ref) {
  SimulationSpec sim;
  sim.accelerator = load_accelerator("adagp_ws180");
  sim.dataflow = sim.accelerator.dataflow;
  auto origin = std::make_shared<ConfigOrigin>();
  origin->file = "<list>";
  YAML::Node scalar(ref);
  return parse_system(ConfigNode(scalar, "system", origin), origin->file, sim);
}

std::string find_system_file(const ConfigNode& node, const std::string& experiment_path) {
  const std::string ref = node.as_nonempty_string();
  std::vector<std::string> tried;
  auto file = find_referenced_file(ref, "systems", experiment_path, &tried);
  if (!file)
    node.fail("unknown system '" + ref + "' (tried " + joined(tried) +
              "); shipped systems: " + joined(shipped_system_names()));
  return *file;
}

SystemSpec parse_system_file_tree(const ConfigNode& node, const std::string& file,
                                  const SimulationSpec& sim) {
  SystemSpec s = parse_system_map(node, file, sim);
  s.source = file;
  if (s.name.empty()) s.name = std::filesystem::path(file).stem().string();
  return s;
}

SystemSpec parse_system(const ConfigNode& node, const std::string& experiment_path,
                        const SimulationSpec& sim) {
  if (node.is_map()) {
    SystemSpec s = parse_system_map(node, experiment_path, sim);
    s.source = "<inline>";
    if (s.name.empty()) s.name = "inline";
    return s;
  }
  const std::string file = find_system_file(node, experiment_path);
  auto origin = std::make_shared<ConfigOrigin>();
  origin->file = file;
  return parse_system_file_tree(ConfigNode(load_yaml_file(file, "system"), "", origin), file, sim);
}

}  // namespace trainsim
