// load_experiment() and load_network(): YAML file -> overrides -> validated specs.
#include "sim/config/experiment_config.h"

#include <filesystem>
#include <memory>
#include <optional>

#include "sim/config/network_config.h"
#include "sim/config/network_lookup.h"
#include "sim/config/optimizer_fields.h"
#include "sim/config/overrides.h"
#include "sim/config/yaml_file.h"
#include "sim/config/yaml_reader.h"
#include "sim/core/error.h"
#include "sim/optim/optimizer_registry.h"

namespace trainsim {

namespace {

std::string file_stem(const std::string& path) {
  return std::filesystem::path(path).stem().string();
}

std::string known_optimizers() {
  std::string out;
  for (const auto& o : optimizers()) out += (out.empty() ? "" : ", ") + o.name;
  return out;
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

// Applies the --set overrides to the experiment tree. A `network.<...>` override needs the
// network as a tree to descend into, so a network given by name or path is first inlined;
// `inlined_from` then remembers its file, whose lines the inlined nodes still carry.
void apply_overrides(YAML::Node root, const std::vector<std::string>& overrides,
                     const std::string& path, ConfigOrigin& origin,
                     std::optional<std::string>& inlined_from) {
  for (const auto& text : overrides) {
    Override o = parse_override(text);
    if (!root.IsMap()) {
      throw UserError("--set " + text + ": " + path + " is not a mapping of keys");
    }
    const YAML::Node& const_root = root;
    if (o.segments.size() > 1 && o.segments[0] == "network" && const_root["network"] &&
        const_root["network"].IsScalar()) {
      ConfigNode ref(const_root["network"], "network",
                     std::make_shared<const ConfigOrigin>(origin));
      std::string file = resolve_network_file(ref, path);
      root["network"] = load_yaml_file(file, "network");
      inlined_from = file;
      origin.overridden.erase("network");  // the value now is the file's content
    }
    std::string key_path = apply_override(root, o);
    if (key_path == "network") inlined_from.reset();
    origin.overridden.insert(key_path);
  }
}

NetworkSpec parse_experiment_network(const ConfigNode& node, const std::string& path,
                                     const std::optional<std::string>& inlined_from) {
  if (inlined_from) {
    // Inlined for overrides: lines point into the network file, paths into the experiment.
    auto origin = std::make_shared<ConfigOrigin>(*node.origin());
    origin->file = *inlined_from;
    ConfigNode net(node.yaml(), node.path(), origin, node.key_mark());
    return parse_network(net, file_stem(*inlined_from), *inlined_from);
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

DatasetSpec parse_dataset(const ConfigNode& node) {
  ConfigMap m = node.as_map();
  m.allow_only({"name", "path", "train_limit", "test_limit"});
  DatasetSpec d;
  // Whether the name is a known dataset is the dataset registry's call, made when loading.
  d.name = m.require("name").as_nonempty_string();
  if (auto v = m.get("path")) d.path = v->as_string();
  if (auto v = m.get("train_limit")) d.train_limit = v->as_int64_at_least(0);
  if (auto v = m.get("test_limit")) d.test_limit = v->as_int64_at_least(0);
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
  m.allow_only({"epochs", "batch_size", "seed", "shuffle", "optimizer"});
  TrainingSpec t;
  if (auto v = m.get("epochs")) t.epochs = v->as_int_at_least(1);
  if (auto v = m.get("batch_size")) t.batch_size = v->as_int_at_least(1);
  if (auto v = m.get("seed")) t.seed = v->as_uint64();
  if (auto v = m.get("shuffle")) t.shuffle = v->as_bool();
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
  std::optional<std::string> inlined_from;
  apply_overrides(root, overrides, path, origin, inlined_from);

  ConfigNode top(root, "", std::make_shared<const ConfigOrigin>(origin));
  ConfigMap m = top.as_map();
  m.allow_only({"name", "network", "dataset", "training", "output"});

  ExperimentSpec spec;
  spec.source = path;
  spec.name = file_stem(path);
  if (auto v = m.get("name")) spec.name = v->as_nonempty_string();
  spec.network = parse_experiment_network(m.require("network"), path, inlined_from);
  spec.dataset = parse_dataset(m.require("dataset"));
  if (auto v = m.get("training")) spec.training = parse_training(*v);
  spec.output.dir = "runs/" + spec.name;
  if (auto v = m.get("output")) {
    ConfigMap out = v->as_map();
    out.allow_only({"dir"});
    if (auto dir = out.get("dir")) spec.output.dir = dir->as_nonempty_string();
  }
  return spec;
}

NetworkSpec load_network(const std::string& path) {
  auto origin = std::make_shared<ConfigOrigin>();
  origin->file = path;
  ConfigNode top(load_yaml_file(path, "network"), "", origin);
  return parse_network(top, file_stem(path), path);
}

}  // namespace trainsim
