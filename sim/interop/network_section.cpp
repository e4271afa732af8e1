#include "sim/interop/network_section.h"

#include <memory>
#include <optional>
#include <string>

#include "sim/interop/onnx_network.h"
#include "sim/interop/scalesim_inputs.h"
#include "sim/workload/net_shape.h"
#include "sim/workload/network_config.h"
#include "sim/workload/network_lookup.h"
#include "sim/workload/network_yaml.h"
#include "sim/yaml/config_files.h"
#include "sim/yaml/parsed_files.h"
#include "sim/yaml/yaml_emit.h"
#include "sim/yaml/yaml_file.h"

namespace trainsim {

namespace {

// The network file a `network: <string>` node refers to, or a UserError at that node.
std::string resolve_network_file(const ConfigNode& node, const std::string& experiment_path) {
  std::string ref = node.as_nonempty_string();
  std::vector<std::string> tried;
  if (auto found = find_network_file(ref, experiment_path, &tried)) return *found;
  std::string what = is_network_path(ref) ? "network file '" + ref + "' not found (tried "
                                          : "unknown network '" + ref + "' (tried ";
  for (std::size_t i = 0; i < tried.size(); ++i) what += (i ? ", " : "") + tried[i];
  what += ")";
  if (!is_network_path(ref)) {
    std::string shipped;
    for (const auto& n : shipped_network_names()) shipped += (shipped.empty() ? "" : ", ") + n;
    if (!shipped.empty()) what += "; shipped networks: " + shipped;
  }
  node.fail(what);
}

// The file a network key names (`network: {onnx: F}`, `{scalesim_topology: F}`): a path, as an
// accelerator's, relative to the experiment's folder, then to the cwd.
std::string model_file(const ConfigNode& file, const std::string& experiment,
                       const std::string& what) {
  const std::string ref = file.as_nonempty_string();
  std::vector<std::string> tried;
  const auto found =
      find_referenced_file(is_config_path(ref) ? ref : "./" + ref, "", experiment, &tried);
  if (!found) {
    std::string list;
    for (const auto& t : tried) list += (list.empty() ? "" : ", ") + t;
    file.fail(what + " '" + ref + "' not found (tried " + list + ")");
  }
  return *found;
}

// The network of a network file, parsed once per text (sim/yaml/parsed_files.h): a sweep's
// worker builds the same network for every point (reading and comparing a few KB instead of
// parsing them took 0.6 ms off each VGG-16 point, 3% of it).
NetworkSpec network_of_file(const std::string& file) {
  static ParsedFiles<NetworkSpec> files;
  return files.get(file, "network", [&](const std::string& text, bool&) {
    auto origin = std::make_shared<ConfigOrigin>();
    origin->file = file;
    const ConfigNode net(parse_yaml_text(text, file), "network", origin);
    return parse_network(net, config_file_stem(file), file);
  });
}

NetworkSpec parse_experiment_network(const ConfigNode& node, const std::string& path,
                                     const InlinedFiles& inlined) {
  const auto from = inlined.find("network");
  if (from != inlined.end()) {
    // Inlined for overrides: lines point into the network file, paths into the experiment.
    auto origin = std::make_shared<ConfigOrigin>(*node.origin());
    origin->file = from->second;
    ConfigNode net(node.yaml(), node.path(), origin, node.key_mark());
    return parse_network(net, config_file_stem(from->second), from->second);
  }
  if (node.is_map() && ConfigMap(node).has("onnx")) {
    ConfigMap m = node.as_map();
    m.allow_only({"onnx", "name"});
    std::string name;
    if (auto n = m.get("name")) name = n->as_nonempty_string();
    return onnx_network(model_file(m.require("onnx"), path, "ONNX model"), name);
  }
  if (node.is_map() && ConfigMap(node).has("scalesim_topology")) {
    ConfigMap m = node.as_map();
    m.allow_only({"scalesim_topology"});
    return scalesim_topology_network(
        model_file(m.require("scalesim_topology"), path, "SCALE-Sim topology"));
  }
  if (node.is_map()) return parse_network(node, config_file_stem(path), "<inline>");
  if (!node.is_scalar()) {
    node.fail("expected a network name, a path to a network file or a mapping, got " +
              node.describe());
  }
  return network_of_file(resolve_network_file(node, path));
}

class NetworkSection final : public ExperimentSection {
 public:
  std::vector<std::string> keys() const override { return {"network"}; }

  void before_override(OverrideStep& step) const override {
    // `network.<...>` needs the network as a tree: one given by name or path is inlined.
    const YAML::Node& const_root = step.root;
    if (step.over.segments.size() < 2 || !const_root["network"] ||
        !const_root["network"].IsScalar())
      return;
    ConfigNode ref(const_root["network"], "network",
                   std::make_shared<const ConfigOrigin>(step.origin));
    const std::string file = resolve_network_file(ref, step.path);
    step.root["network"] = load_yaml_file(file, "network");
    step.inlined["network"] = file;
    step.origin.overridden.erase("network");  // the value now is the file's content
  }

  void parse(const ConfigMap& top, const SectionInput& in, ExperimentSpec& spec) const override {
    spec.network = parse_experiment_network(top.require("network"), in.path, in.inlined);
  }

  void check(const ConfigMap&, const ExperimentSpec& spec) const override {
    // The shapes, and the sizes they form, are checked before anything is built from them: a
    // kernel that does not fit, or a layer past the limits of sim/workload/size_limits.h.
    const NetShape shapes(spec.network);
  }

  void emit(YAML::Emitter& out, const ExperimentSpec& spec) const override {
    out << YAML::Key << Plain{"network"} << YAML::Value;
    emit_network(out, spec.network);
  }
};

}  // namespace

const ExperimentSection& network_section() {
  static const NetworkSection s;
  return s;
}

}  // namespace trainsim
