#include "sim/accel/simulation_section.h"

#include <memory>
#include <optional>

#include "dataflows/registry.h"
#include "sim/accel/accel_lookup.h"
#include "sim/accel/accelerator_config.h"
#include "sim/accel/accelerator_parse.h"
#include "sim/core/named_registry.h"
#include "sim/techniques/technique_config.h"
#include "sim/yaml/config_files.h"
#include "sim/yaml/yaml_emit.h"
#include "sim/yaml/yaml_file.h"

namespace trainsim {

namespace {

// The accelerator an experiment is timed on when it names none: the ADA-GP papers'
// baseline, the design the simulator's results are compared against.
constexpr const char* kDefaultAccelerator = "adagp_ws180";

std::string known_dataflows() {
  return registry_names(dataflows());
}

std::optional<std::string> inlined_file(const InlinedFiles& inlined, const std::string& key) {
  const auto it = inlined.find(key);
  if (it == inlined.end()) return std::nullopt;
  return it->second;
}

// The accelerator file `ref` names for the experiment at `path`, or a UserError: at `node`
// when the experiment names the accelerator, at the experiment's root for the default.
std::string resolve_accelerator_file(const std::string& ref, const std::string& path,
                                     const std::optional<ConfigNode>& node, const ConfigNode& top) {
  std::vector<std::string> tried;
  if (auto found = find_experiment_accelerator_file(ref, path, &tried)) return *found;
  std::string what = is_config_path(ref) ? "accelerator file '" + ref + "' not found (tried "
                     : node              ? "unknown accelerator '" + ref + "' (tried "
                            : "the default accelerator '" + ref + "' was not found (tried ";
  for (std::size_t i = 0; i < tried.size(); ++i) what += (i ? ", " : "") + tried[i];
  what += ")";
  if (!is_config_path(ref)) {
    std::string shipped;
    for (const auto& n : shipped_accelerator_names()) {
      shipped += (shipped.empty() ? "" : ", ") + n;
    }
    if (!shipped.empty()) what += "; shipped accelerators: " + shipped;
  }
  if (node) node->fail(what);
  config_fail(*top.origin(), top.child_path("accelerator"), top.mark(), what);
}

// Before an `accelerator.<...>` override: an accelerator given by name or path (or the
// default one) is inlined so the override has a tree to descend into, and so is its energy
// table if the override descends into `accelerator.energy.<...>` (the same pattern as
// `network.<...>`, one level deeper).
void inline_accelerator_for_override(OverrideStep& step) {
  YAML::Node root = step.root;
  const YAML::Node& const_root = root;
  YAML::Node accel = const_root["accelerator"];
  if (!accel.IsDefined() || accel.IsNull() || accel.IsScalar()) {
    auto shared = std::make_shared<const ConfigOrigin>(step.origin);
    ConfigNode top(root, "", shared);
    std::optional<ConfigNode> ref;
    if (accel.IsDefined() && !accel.IsNull()) ref = ConfigNode(accel, "accelerator", shared);
    std::string file = resolve_accelerator_file(
        ref ? ref->as_nonempty_string() : kDefaultAccelerator, step.path, ref, top);
    root["accelerator"] = load_yaml_file(file, "accelerator");
    step.inlined["accelerator"] = file;
    step.inlined.erase("accelerator.energy");
    step.origin.overridden.erase("accelerator");  // the value now is the file's content
  }
  // Errors about the energy reference point into wherever the accelerator's lines are.
  const std::optional<std::string> accel_file = inlined_file(step.inlined, "accelerator");
  auto accel_origin = std::make_shared<ConfigOrigin>(step.origin);
  if (accel_file) accel_origin->file = *accel_file;
  YAML::Node accel_tree = root["accelerator"];
  ConfigNode at(accel_tree, "accelerator", accel_origin);
  std::vector<std::string> rest(step.over.segments.begin() + 1, step.over.segments.end());
  if (auto table =
          inline_energy_for_override(accel_tree, rest, at, accel_file.value_or(step.path))) {
    step.inlined["accelerator.energy"] = *table;
    step.origin.overridden.erase("accelerator.energy");
  }
}

// Before a `technique.<...>` override: a technique given by name (`specbp@0.25`) becomes the
// mapping it stands for (`{kind: specbp, threshold: 0.25}`), so the override has a mapping to
// set its key in; the technique's parser then checks that key as any other.
void expand_technique_for_override(YAML::Node root, const ConfigOrigin& origin) {
  const YAML::Node& const_root = root;
  const YAML::Node technique = const_root["technique"];
  if (!technique.IsDefined() || !technique.IsScalar()) return;
  // A name that is no technique, or a parameter it does not take, is reported as it is
  // written, at its line, not as whatever the expansion would make of it.
  auto shared = std::make_shared<const ConfigOrigin>(origin);
  const ConfigNode top(root, "", shared);
  const ConfigNode node(technique, "technique", shared);
  parse_technique(&node, top);
  root["technique"] = merge_technique_override(YAML::Node(YAML::NodeType::Map), technique, nullptr);
}

AcceleratorSpec parse_experiment_accelerator(const std::optional<ConfigNode>& node,
                                             const ConfigNode& top, const std::string& path,
                                             const InlinedFiles& inlined) {
  const std::optional<std::string> energy = inlined_file(inlined, "accelerator.energy");
  if (const std::optional<std::string> file = inlined_file(inlined, "accelerator"); file && node) {
    // Inlined for overrides: lines point into the accelerator file, paths into the
    // experiment.
    auto origin = std::make_shared<ConfigOrigin>(*node->origin());
    origin->file = *file;
    ConfigNode accel(node->yaml(), node->path(), origin, node->key_mark());
    return parse_accelerator_node(accel, {*file, config_file_stem(*file), *file, energy});
  }
  if (node && node->is_map()) {
    // Relative energy paths in an inline accelerator resolve against the experiment.
    return parse_accelerator_node(*node, {path, config_file_stem(path), "<inline>", energy});
  }
  if (node && !node->is_scalar()) {
    node->fail("expected an accelerator name, a path to an accelerator file or a mapping, got " +
               node->describe());
  }
  std::string ref = node ? node->as_nonempty_string() : kDefaultAccelerator;
  std::string file = resolve_accelerator_file(ref, path, node, top);
  auto origin = std::make_shared<ConfigOrigin>();
  origin->file = file;
  ConfigNode accel(load_yaml_file(file, "accelerator"), top.child_path("accelerator"), origin);
  return parse_accelerator_node(accel, {file, config_file_stem(file), file, std::nullopt});
}

class SimulationSection final : public ExperimentSection {
 public:
  std::vector<std::string> keys() const override {
    return {"accelerator", "dataflow", "technique", "fidelity", "memory", "residency"};
  }

  void before_override(OverrideStep& step) const override {
    const Override& o = step.over;
    const YAML::Node& const_root = step.root;
    // A technique by name keeps the experiment's technique keys that it has too.
    if (o.segments.size() == 1 && o.segments[0] == "technique" && o.value.IsScalar() &&
        const_root["technique"] && const_root["technique"].IsMap()) {
      std::vector<std::string> dropped;
      step.over.value = merge_technique_override(const_root["technique"], o.value, &dropped);
      if (!dropped.empty()) {
        std::string keys;
        for (const auto& k : dropped) keys += (keys.empty() ? "" : ", ") + k;
        step.notes.push_back("--set " + o.text + " drops the experiment's technique keys " + keys +
                             " (not keys of " + step.over.value["kind"].as<std::string>() + ")");
      }
    }
    // The experiment's key `accelerator` shares its name with a device kind.
    if (o.segments.size() > 1 && o.segments[0] == "accelerator")  // kind-name ok: a key
      inline_accelerator_for_override(step);
    if (o.segments.size() > 1 && o.segments[0] == "technique")
      expand_technique_for_override(step.root, step.origin);
  }

  // The dataflow defaults to the accelerator's own, so the accelerator is parsed first.
  void parse(const ConfigMap& m, const SectionInput& in, ExperimentSpec& spec) const override {
    const ConfigNode& top = m.node();
    SimulationSpec& sim = spec.sim;
    sim.accelerator = parse_experiment_accelerator(m.get("accelerator"), top, in.path, in.inlined);

    sim.dataflow = sim.accelerator.dataflow;
    if (auto v = m.get("dataflow")) {
      sim.dataflow = v->as_nonempty_string();
      if (find_dataflow(sim.dataflow) == nullptr) {
        v->fail("unknown dataflow '" + sim.dataflow + "' (known: " + known_dataflows() + ")");
      }
    } else if (find_dataflow(sim.dataflow) == nullptr) {
      // Accelerator files accept every dataflow name, whether implemented or not.
      config_fail(*top.origin(), top.child_path("dataflow"), top.mark(),
                  "accelerator '" + sim.accelerator.name + "' uses dataflow '" + sim.dataflow +
                      "', which is not registered (known: " + known_dataflows() + ")");
    }

    // The experiment's memory model replaces the accelerator's own, as its dataflow does.
    if (auto v = m.get("memory")) sim.accelerator.memory = parse_memory_model(*v);
    if (auto v = m.get("residency")) sim.residency = v->as_bool();

    auto technique = m.get("technique");
    sim.technique = parse_technique(technique ? &*technique : nullptr, top);

    if (auto v = m.get("fidelity")) sim.fidelity = v->as_choice({"fast", "cycle"});
  }

  // The accelerator is inlined in full, so the resolved file does not depend on the preset
  // files staying as they are.
  void emit(YAML::Emitter& out, const ExperimentSpec& spec) const override {
    const SimulationSpec& sim = spec.sim;
    out << YAML::Key << Plain{"accelerator"} << YAML::Value;
    emit_accelerator(out, sim.accelerator);
    out << YAML::Key << Plain{"dataflow"} << YAML::Value;
    emit_string(out, sim.dataflow);
    out << YAML::Key << Plain{"technique"} << YAML::Value;
    emit_technique(out, sim.technique);
    out << YAML::Key << Plain{"fidelity"} << YAML::Value;
    emit_string(out, sim.fidelity);
    out << YAML::Key << Plain{"memory"} << YAML::Value;
    emit_string(out, sim.accelerator.memory);
    out << YAML::Key << Plain{"residency"} << YAML::Value << sim.residency;
  }
};

}  // namespace

const ExperimentSection& simulation_section() {
  static const SimulationSection s;
  return s;
}

}  // namespace trainsim
