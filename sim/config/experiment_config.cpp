// load_experiment(): YAML file -> overrides -> validated specs.
#include "sim/config/experiment_config.h"

#include <filesystem>
#include <memory>
#include <optional>

#include "dataflows/registry.h"
#include "sim/accel/accel_lookup.h"
#include "sim/accel/accelerator_config.h"
#include "sim/accel/accelerator_parse.h"
#include "sim/config/network_lookup.h"
#include "sim/core/error.h"
#include "sim/core/named_registry.h"
#include "sim/core/parallel.h"
#include "sim/devices/system_config.h"
#include "sim/hype/hype_config.h"
#include "sim/interop/scalesim_inputs.h"
#include "sim/optim/optimizer_fields.h"
#include "sim/optim/optimizer_registry.h"
#include "sim/pipeline/pipeline_config.h"
#include "sim/techniques/technique.h"
#include "sim/techniques/technique_config.h"
#include "sim/workload/net_shape.h"
#include "sim/workload/network_config.h"
#include "sim/yaml/key_ranges.h"
#include "sim/yaml/overrides.h"
#include "sim/yaml/yaml_file.h"
#include "sim/yaml/yaml_reader.h"

namespace trainsim {

namespace {

// The accelerator an experiment is timed on when it names none: the ADA-GP papers'
// baseline, the design the simulator's results are compared against.
constexpr const char* kDefaultAccelerator = "adagp_ws180";

// Files whose content --set overrides inlined into the experiment tree. The inlined nodes
// still carry those files' lines, so errors in them must name the file, not the experiment.
struct Inlined {
  std::optional<std::string> network;
  std::optional<std::string> accelerator;
  std::optional<std::string> accelerator_energy;  ///< the table inside the accelerator
  std::optional<std::string> system;
};

std::string file_stem(const std::string& path) {
  return std::filesystem::path(path).stem().string();
}

std::string known_optimizers() {
  std::string out;
  for (const auto& o : optimizers()) out += (out.empty() ? "" : ", ") + o.name;
  return out;
}

std::string known_dataflows() {
  return registry_names(dataflows());
}

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
void inline_accelerator_for_override(YAML::Node root, const Override& o, const std::string& path,
                                     ConfigOrigin& origin, Inlined& inlined) {
  const YAML::Node& const_root = root;
  YAML::Node accel = const_root["accelerator"];
  if (!accel.IsDefined() || accel.IsNull() || accel.IsScalar()) {
    auto shared = std::make_shared<const ConfigOrigin>(origin);
    ConfigNode top(root, "", shared);
    std::optional<ConfigNode> ref;
    if (accel.IsDefined() && !accel.IsNull()) ref = ConfigNode(accel, "accelerator", shared);
    std::string file = resolve_accelerator_file(
        ref ? ref->as_nonempty_string() : kDefaultAccelerator, path, ref, top);
    root["accelerator"] = load_yaml_file(file, "accelerator");
    inlined.accelerator = file;
    inlined.accelerator_energy.reset();
    origin.overridden.erase("accelerator");  // the value now is the file's content
  }
  // Errors about the energy reference point into wherever the accelerator's lines are.
  auto accel_origin = std::make_shared<ConfigOrigin>(origin);
  if (inlined.accelerator) accel_origin->file = *inlined.accelerator;
  YAML::Node accel_tree = root["accelerator"];
  ConfigNode at(accel_tree, "accelerator", accel_origin);
  std::vector<std::string> rest(o.segments.begin() + 1, o.segments.end());
  if (auto table =
          inline_energy_for_override(accel_tree, rest, at, inlined.accelerator.value_or(path))) {
    inlined.accelerator_energy = table;
    origin.overridden.erase("accelerator.energy");
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

// Before a `system.<...>` override: a system given by name or path is inlined, as an
// accelerator is; `inlined.system` remembers its file, whose lines and relative paths the
// inlined tree keeps. `system: none` (one device) becomes an empty system to fill.
void inline_system_for_override(YAML::Node root, const std::string& path, ConfigOrigin& origin,
                                Inlined& inlined) {
  const YAML::Node& const_root = root;
  const YAML::Node system = const_root["system"];
  if (!system.IsDefined() || !system.IsScalar()) return;
  if (system.as<std::string>() == "none") {
    root["system"] = YAML::Node(YAML::NodeType::Map);
  } else {
    const ConfigNode ref(system, "system", std::make_shared<const ConfigOrigin>(origin));
    const std::string file = find_system_file(ref, path);
    root["system"] = load_yaml_file(file, "system");
    inlined.system = file;
  }
  origin.overridden.erase("system");  // the value now is the file's content
}

// Applies the --set overrides to the experiment tree. A `network.<...>` override needs the
// network as a tree to descend into, so a network given by name or path is first inlined;
// `inlined` then remembers its file, whose lines the inlined nodes still carry. The same
// goes for `accelerator.<...>` (and the accelerator's energy table) and `system.<...>`; a
// technique by name is expanded into its mapping.
void apply_overrides(YAML::Node root, const std::vector<std::string>& overrides,
                     const std::string& path, ConfigOrigin& origin, Inlined& inlined,
                     std::vector<std::string>& notes) {
  for (const auto& text : overrides) {
    Override o = parse_override(text);
    if (!root.IsMap()) {
      throw UserError("--set " + text + ": " + path + " is not a mapping of keys");
    }
    const YAML::Node& const_root = root;
    // A technique by name keeps the experiment's technique keys that it has too.
    if (o.segments.size() == 1 && o.segments[0] == "technique" && o.value.IsScalar() &&
        const_root["technique"] && const_root["technique"].IsMap()) {
      std::vector<std::string> dropped;
      o.value = merge_technique_override(const_root["technique"], o.value, &dropped);
      if (!dropped.empty()) {
        std::string keys;
        for (const auto& k : dropped) keys += (keys.empty() ? "" : ", ") + k;
        notes.push_back("--set " + text + " drops the experiment's technique keys " + keys +
                        " (not keys of " + o.value["kind"].as<std::string>() + ")");
      }
    }
    if (o.segments.size() > 1 && o.segments[0] == "network" && const_root["network"] &&
        const_root["network"].IsScalar()) {
      ConfigNode ref(const_root["network"], "network",
                     std::make_shared<const ConfigOrigin>(origin));
      std::string file = resolve_network_file(ref, path);
      root["network"] = load_yaml_file(file, "network");
      inlined.network = file;
      origin.overridden.erase("network");  // the value now is the file's content
    }
    // The experiment's keys `accelerator` and `system` share names with a device kind and a
    // kind of run.
    if (o.segments.size() > 1 && o.segments[0] == "accelerator") {  // kind-name ok: a key
      inline_accelerator_for_override(root, o, path, origin, inlined);
    }
    if (o.segments.size() > 1 && o.segments[0] == "technique")
      expand_technique_for_override(root, origin);
    if (o.segments.size() > 1 && o.segments[0] == "system")  // kind-name ok: a key
      inline_system_for_override(root, path, origin, inlined);
    std::string key_path = apply_override(root, o);
    // A whole new value replaces whatever was inlined.
    if (key_path == "network") inlined.network.reset();
    if (key_path == "accelerator") {  // kind-name ok: a key
      inlined.accelerator.reset();
      inlined.accelerator_energy.reset();
    }
    if (key_path == "accelerator.energy") inlined.accelerator_energy.reset();
    if (key_path == "system") inlined.system.reset();  // kind-name ok: a key
    origin.overridden.insert(key_path);
  }
}

namespace {

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

}  // namespace

NetworkSpec parse_experiment_network(const ConfigNode& node, const std::string& path,
                                     const std::optional<std::string>& inlined_from) {
  if (inlined_from) {
    // Inlined for overrides: lines point into the network file, paths into the experiment.
    auto origin = std::make_shared<ConfigOrigin>(*node.origin());
    origin->file = *inlined_from;
    ConfigNode net(node.yaml(), node.path(), origin, node.key_mark());
    return parse_network(net, file_stem(*inlined_from), *inlined_from);
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
  if (node.is_map()) return parse_network(node, file_stem(path), "<inline>");
  if (!node.is_scalar()) {
    node.fail("expected a network name, a path to a network file or a mapping, got " +
              node.describe());
  }
  std::string file = resolve_network_file(node, path);
  auto origin = std::make_shared<ConfigOrigin>();
  origin->file = file;
  ConfigNode net(load_yaml_file(file, "network"), "network", origin);
  return parse_network(net, file_stem(file), file);
}

AcceleratorSpec parse_experiment_accelerator(const std::optional<ConfigNode>& node,
                                             const ConfigNode& top, const std::string& path,
                                             const Inlined& inlined) {
  if (inlined.accelerator && node) {
    // Inlined for overrides: lines point into the accelerator file, paths into the
    // experiment.
    const std::string& file = *inlined.accelerator;
    auto origin = std::make_shared<ConfigOrigin>(*node->origin());
    origin->file = file;
    ConfigNode accel(node->yaml(), node->path(), origin, node->key_mark());
    return parse_accelerator_node(accel, {file, file_stem(file), file, inlined.accelerator_energy});
  }
  if (node && node->is_map()) {
    // Relative energy paths in an inline accelerator resolve against the experiment.
    return parse_accelerator_node(*node,
                                  {path, file_stem(path), "<inline>", inlined.accelerator_energy});
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
  return parse_accelerator_node(accel, {file, file_stem(file), file, std::nullopt});
}

// The simulation keys. The dataflow defaults to the accelerator's own, so the accelerator
// is parsed first.
SimulationSpec parse_simulation(const ConfigMap& m, const std::string& path,
                                const Inlined& inlined) {
  const ConfigNode& top = m.node();
  SimulationSpec sim;
  sim.accelerator = parse_experiment_accelerator(m.get("accelerator"), top, path, inlined);

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
  return sim;
}

DatasetSpec parse_dataset(const ConfigNode& node) {
  ConfigMap m = node.as_map();
  m.allow_only({"name", "path", "train_limit", "test_limit"});
  DatasetSpec d;
  // Whether the name is a known dataset is the dataset registry's call, made when loading.
  d.name = m.require("name").as_nonempty_string();
  if (auto v = m.get("path")) d.path = v->as_string();
  if (auto v = m.get("train_limit")) d.train_limit = v->as_int64_in(key_range::kSampleLimit);
  if (auto v = m.get("test_limit")) d.test_limit = v->as_int64_in(key_range::kSampleLimit);
  return d;
}

OptimizerSpec parse_optimizer(const ConfigNode& node) {
  ConfigMap m = node.as_map();
  OptimizerSpec opt;
  auto kind = m.get("kind");
  if (kind) opt.kind = kind->as_nonempty_string();
  const OptimizerInfo* info = find_optimizer(opt.kind);
  if (info == nullptr) {
    if (!kind) m.node().fail("the default optimizer '" + opt.kind + "' is not registered");
    kind->fail("unknown optimizer '" + opt.kind + "' (known: " + known_optimizers() + ")");
  }
  // Keys of other optimizers are rejected: a `momentum` under adam would silently do
  // nothing otherwise.
  std::vector<std::string> allowed = {"kind"};
  allowed.insert(allowed.end(), info->keys.begin(), info->keys.end());
  m.allow_only(allowed);
  for (const auto& key : info->keys) {
    if (auto v = m.get(key)) optimizer_field(key).read(*v, opt);
  }
  return opt;
}

TrainingSpec parse_training(const ConfigNode& node) {
  ConfigMap m = node.as_map();
  m.allow_only({"epochs", "batch_size", "seed", "shuffle", "threads", "optimizer"});
  TrainingSpec t;
  t.threads = default_threads();
  if (auto v = m.get("epochs")) t.epochs = v->as_int_in(key_range::kEpochs);
  if (auto v = m.get("batch_size")) t.batch_size = v->as_int_in(key_range::kBatch);
  if (auto v = m.get("seed")) t.seed = v->as_uint64();
  if (auto v = m.get("shuffle")) t.shuffle = v->as_bool();
  // At most kMaxThreads: a numerics loop is cut into at most that many tasks, so more
  // threads could never work at once.
  if (auto v = m.get("threads")) t.threads = v->as_int_in(IntRange{1, kMaxThreads});
  if (auto v = m.get("optimizer")) t.optimizer = parse_optimizer(*v);
  return t;
}

}  // namespace

ExperimentSpec load_experiment(const std::string& path, const std::vector<std::string>& overrides) {
  YAML::Node root = load_yaml_file(path, "experiment");
  // An empty file is a null node without storage; overrides need a mapping to write into.
  if (!overrides.empty() && (!root.IsDefined() || root.IsNull())) {
    root = YAML::Node(YAML::NodeType::Map);
  }
  ConfigOrigin origin;
  origin.file = path;
  Inlined inlined;
  std::vector<std::string> notes;
  apply_overrides(root, overrides, path, origin, inlined, notes);

  ConfigNode top(root, "", std::make_shared<const ConfigOrigin>(origin));
  ConfigMap m = top.as_map();
  // The simulation keys are listed after the older keys, which keeps that message stable.
  m.allow_only({"name", "network", "dataset", "training", "output", "accelerator", "dataflow",
                "technique", "fidelity", "numerics", "memory", "residency", "system", "pipeline",
                "hype"});

  ExperimentSpec spec;
  spec.notes = notes;
  spec.source = path;
  spec.name = file_stem(path);
  if (auto v = m.get("name")) spec.name = v->as_nonempty_string();
  if (auto v = m.get("numerics")) spec.numerics = v->as_choice({"float", "none"});
  spec.network = parse_experiment_network(m.require("network"), path, inlined.network);
  spec.dataset = parse_dataset(m.require("dataset"));
  spec.training.threads = default_threads();
  if (auto v = m.get("training")) spec.training = parse_training(*v);
  spec.sim = parse_simulation(m, path, inlined);
  // `system: none` (e.g. --set system=none) is one device, as no `system:` at all.
  if (auto v = m.get("system"); v && !(v->is_scalar() && v->as_string() == "none")) {
    if (inlined.system) {
      // Inlined for overrides: lines point into the system file, paths into the experiment.
      auto system_origin = std::make_shared<ConfigOrigin>(*v->origin());
      system_origin->file = *inlined.system;
      spec.system =
          parse_system_file_tree(ConfigNode(v->yaml(), v->path(), system_origin, v->key_mark()),
                                 *inlined.system, spec.sim);
    } else {
      spec.system = parse_system(*v, path, spec.sim);
    }
  }
  // `hype: none` (e.g. --set hype=none) is one device, as no `hype:` at all. With a `system:`,
  // `hype:` is the placement of every op over the system's devices instead of pipeline stages.
  auto hype = m.get("hype");
  if (hype && hype->is_scalar() && hype->as_string() == "none") hype.reset();
  {
    auto v = m.get("pipeline");
    if (hype) {
      if (v) {
        // Checked as ever, then set aside.
        if (spec.system.present()) parse_pipeline(&*v, top, spec);
        spec.notes.push_back("pipeline: unused, hype: places every op, not stages");
      }
    } else {
      spec.pipeline = parse_pipeline(v ? &*v : nullptr, top, spec);
      if (v && !spec.system.present())
        spec.notes.push_back("pipeline: unused, the experiment runs on one device (no system)");
    }
  }
  if (auto v = hype) {
    if (spec.system.present()) {
      // A system written in the experiment may not set links; a named one (a preset or a
      // file, overridden or not) keeps its own, unused, with a note.
      const ConfigNode system_node = m.require("system");
      const bool own = system_node.is_map() && !inlined.system;
      spec.hype = std::make_shared<const HypeSpec>(
          parse_hype(*v, path, &spec.system, own ? &system_node : nullptr));
      if (!own)
        spec.notes.push_back(
            "system: its topology and links are unused under hype:, whose "
            "devices talk over the host (hype.links)");
    } else {
      // `hype:` names its own devices: they are the experiment's system all the same.
      spec.hype = std::make_shared<const HypeSpec>(parse_hype(*v, path));
      spec.system = implied_system(*v, *spec.hype, path, spec.sim);
    }
    // What only offloading reads is unused on GPUs alone: say so rather than ignore it.
    for (const char* key : {"thresholds", "overlap_rule", "offload_types"})
      if (spec.hype->offloads == 0 && spec.hype->raw[key])
        spec.notes.push_back(std::string("hype.") + key +
                             ": unused, the system has no offload devices");
  }
  spec.output.dir = "runs/" + spec.name;
  if (auto v = m.get("output")) {
    ConfigMap out = v->as_map();
    out.allow_only({"dir"});
    if (auto dir = out.get("dir")) spec.output.dir = dir->as_nonempty_string();
  }
  // The shapes, and the sizes they form, are checked before anything is built from them: a
  // kernel that does not fit, or a layer past the limits of sim/workload/size_limits.h.
  const NetShape shapes(spec.network);
  // Its branches are layers cut out of a model; split over devices, every branch's output
  // would travel to the sink's device, traffic the model it came from does not have.
  if (shapes.ends_in_sink() && spec.system.present() && !spec.hype)
    m.require("system").fail(
        "a network that ends in a sink (a SCALE-Sim topology) runs on one device, not on a "
        "system");
  return spec;
}

}  // namespace trainsim
