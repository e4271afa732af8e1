#include "sim/devices/system_section.h"

#include <memory>

#include "models/platform/topology.h"
#include "sim/accel/accelerator_parse.h"
#include "sim/devices/system_config.h"
#include "sim/workload/net_shape.h"
#include "sim/yaml/yaml_emit.h"
#include "sim/yaml/yaml_file.h"

namespace trainsim {

namespace {

void emit_link_figures(YAML::Emitter& out, const LinkSpec& l) {
  out << YAML::Key << Plain{"bandwidth_gbps"} << YAML::Value;
  emit_double(out, l.bandwidth_gbps);
  out << YAML::Key << Plain{"latency_ns"} << YAML::Value;
  emit_double(out, l.latency_ns);
  out << YAML::Key << Plain{"pj_per_bit"} << YAML::Value;
  emit_double(out, l.pj_per_bit);
}

// The system inlined in full, every device with its accelerator, like the experiment's;
// without its links under hype:, whose devices talk over the host.
void emit_system(YAML::Emitter& out, const SystemSpec& s, bool links) {
  out << YAML::BeginMap;
  out << YAML::Key << Plain{"name"} << YAML::Value;
  emit_string(out, s.name);
  out << YAML::Key << Plain{"devices"} << YAML::Value << YAML::BeginSeq;
  for (const DeviceSpec& d : s.devices) {
    out << YAML::BeginMap;
    if (d.model) {
      out << YAML::Key << Plain{"device"} << YAML::Value << YAML::Load(d.model_ref) << YAML::EndMap;
      continue;
    }
    out << YAML::Key << Plain{"accelerator"} << YAML::Value;
    emit_accelerator(out, d.accelerator);
    out << YAML::Key << Plain{"dataflow"} << YAML::Value;
    emit_string(out, d.dataflow);
    out << YAML::EndMap;
  }
  out << YAML::EndSeq;
  if (!links) {
    out << YAML::EndMap;
    return;
  }
  out << YAML::Key << Plain{"topology"} << YAML::Value;
  emit_string(out, s.topology);
  out << YAML::Key << Plain{"link"} << YAML::Value << YAML::BeginMap;
  emit_link_figures(out, s.link);
  out << YAML::EndMap;
  const Topology* topology = find_topology(s.topology);
  if (topology != nullptr && topology->build == nullptr) {  // the links are the config's own
    out << YAML::Key << Plain{"links"} << YAML::Value << YAML::BeginSeq;
    for (const LinkSpec& l : s.net.links) {
      out << YAML::BeginMap << YAML::Key << Plain{"between"} << YAML::Value << YAML::Flow
          << YAML::BeginSeq << l.a << l.b << YAML::EndSeq;
      emit_link_figures(out, l);
      out << YAML::EndMap;
    }
    out << YAML::EndSeq;
  }
  out << YAML::EndMap;
}

class SystemSection final : public ExperimentSection {
 public:
  std::vector<std::string> keys() const override { return {"system"}; }

  // Before a `system.<...>` override: a system given by name or path is inlined, as an
  // accelerator is; the inlined tree keeps its file's lines and relative paths. `system: none`
  // (one device) becomes an empty system to fill.
  void before_override(OverrideStep& step) const override {
    if (step.over.segments.size() < 2) return;
    const YAML::Node& const_root = step.root;
    const YAML::Node system = const_root["system"];
    if (!system.IsDefined() || !system.IsScalar()) return;
    if (system.as<std::string>() == "none") {
      step.root["system"] = YAML::Node(YAML::NodeType::Map);
    } else {
      const ConfigNode ref(system, "system", std::make_shared<const ConfigOrigin>(step.origin));
      const std::string file = find_system_file(ref, step.path);
      step.root["system"] = load_yaml_file(file, "system");
      step.inlined["system"] = file;
    }
    step.origin.overridden.erase("system");  // the value now is the file's content
  }

  void parse(const ConfigMap& m, const SectionInput& in, ExperimentSpec& spec) const override {
    // `system: none` (e.g. --set system=none) is one device, as no `system:` at all.
    auto v = m.get("system");
    if (!v || (v->is_scalar() && v->as_string() == "none")) return;
    const auto file = in.inlined.find("system");
    if (file != in.inlined.end()) {
      // Inlined for overrides: lines point into the system file, paths into the experiment.
      auto system_origin = std::make_shared<ConfigOrigin>(*v->origin());
      system_origin->file = file->second;
      spec.system = parse_system_file_tree(
          ConfigNode(v->yaml(), v->path(), system_origin, v->key_mark()), file->second, spec.sim);
    } else {
      spec.system = parse_system(*v, in.path, spec.sim);
    }
  }

  void check(const ConfigMap& m, const ExperimentSpec& spec) const override {
    // Its branches are layers cut out of a model; split over devices, every branch's output
    // would travel to the sink's device, traffic the model it came from does not have.
    if (spec.system.present() && !spec.hype && NetShape(spec.network).ends_in_sink())
      m.require("system").fail(
          "a network that ends in a sink (a SCALE-Sim topology) runs on one device, not on a "
          "system");
  }

  // The system inlined in full, unless a `hype:` implied it (written as that hype: is).
  void emit(YAML::Emitter& out, const ExperimentSpec& spec) const override {
    if (!spec.system.present() || !spec.system.implied_by.empty()) return;
    out << YAML::Key << Plain{"system"} << YAML::Value;
    emit_system(out, spec.system, !spec.hype);
  }
};

}  // namespace

const ExperimentSection& system_section() {
  static const SystemSection s;
  return s;
}

}  // namespace trainsim
