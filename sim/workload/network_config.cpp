#include "sim/workload/network_config.h"

#include <filesystem>
#include <map>
#include <memory>

#include "sim/nn/layer_registry.h"
#include "sim/workload/layer_fields.h"
#include "sim/yaml/key_ranges.h"
#include "sim/yaml/yaml_file.h"

namespace trainsim {

namespace {

std::string known_layer_types() {
  std::string out;
  for (const auto& t : layer_types()) out += (out.empty() ? "" : ", ") + t.name;
  return out;
}

LayerSpec parse_layer(const ConfigNode& node, std::size_t index) {
  ConfigMap m = node.as_map();
  ConfigNode type_node = m.require("type");
  LayerSpec layer;
  layer.type = type_node.as_string();
  const LayerTypeInfo* info = find_layer_type(layer.type);
  if (info == nullptr) {
    type_node.fail("unknown layer type '" + layer.type + "' (known: " + known_layer_types() + ")");
  }
  std::vector<std::string> allowed = {"type", "name"};
  allowed.insert(allowed.end(), info->keys.begin(), info->keys.end());
  m.allow_only(allowed);
  for (const auto& key : info->required) m.require(key);

  for (const auto& key : info->keys) {
    if (auto v = m.get(key)) layer_field(key).read(*v, layer);
  }
  // Non-overlapping pooling is the usual intent of "kernel: 2".
  if (info->stride_defaults_to_kernel && !m.has("stride")) layer.stride = layer.kernel;
  if (info->min_inputs > 1 && static_cast<int>(layer.from.size()) < info->min_inputs)
    m.require("from").fail(
        "'" + layer.type + "' needs " +
        (info->min_inputs == 2 ? std::string("two") : std::to_string(info->min_inputs)) +
        " or more layers in `from`, got " + std::to_string(layer.from.size()));

  if (auto name = m.get("name")) {
    layer.name = name->as_nonempty_string();
  } else {
    layer.name = layer.type + std::to_string(index);
  }
  return layer;
}

std::array<int, 3> parse_input(const ConfigNode& node) {
  std::vector<ConfigNode> dims = node.as_sequence();
  if (dims.size() != 3) {
    node.fail("expected 3 integers [channels, height, width], got " + std::to_string(dims.size()));
  }
  return {{dims[0].as_int_in(key_range::kExtent), dims[1].as_int_in(key_range::kExtent),
           dims[2].as_int_in(key_range::kExtent)}};
}

InitSpec parse_init(const ConfigNode& node) {
  ConfigMap m = node.as_map();
  m.allow_only({"scheme", "scale"});
  InitSpec init;
  if (auto v = m.get("scheme")) init.scheme = v->as_choice(init_schemes());
  if (auto v = m.get("scale")) init.scale = v->as_double_positive();
  return init;
}

std::vector<LayerSpec> parse_layers(const ConfigNode& node) {
  std::vector<ConfigNode> items = node.as_sequence();
  if (items.empty()) node.fail("a network needs at least one layer (the last is softmax)");
  std::vector<LayerSpec> layers;
  std::map<std::string, std::size_t> first_use;
  for (std::size_t i = 0; i < items.size(); ++i) {
    LayerSpec layer = parse_layer(items[i], i);
    auto name_node = items[i].as_map().get("name");
    const ConfigNode& at = name_node ? *name_node : items[i];
    auto [it, fresh] = first_use.emplace(layer.name, i);
    if (!fresh) {
      at.fail("duplicate layer name '" + layer.name + "' (also layer " +
              std::to_string(it->second) + ")");
    }
    // `from` may only name layers above this one (or the network input): a network is a
    // feed-forward graph in file order.
    for (const auto& src : layer.from) {
      if ((src != "input" && first_use.count(src) == 0) || src == layer.name) {
        items[i].as_map().require("from").fail(
            "layer '" + layer.name + "' reads '" + src +
            "', which is not a layer above it (nor 'input', the network input)");
      }
    }
    // A sink stands where the loss would: for the rest of the model, which is not simulated
    // and hands back the gradients of the outputs it reads. Nothing may follow it.
    const bool sink = layer_boundary(layer.type) == LayerBoundary::kSink;
    if (sink && i + 1 != items.size())
      items[i].as_map().require("type").fail("a sink must be the last layer");
    layers.push_back(layer);
  }
  // The last layer is fused with the loss (softmax with cross-entropy, sigmoid with binary
  // cross-entropy) or a sink; a softmax elsewhere is an ordinary layer (attention's).
  if (output_loss(layers.back().type) == OutputLoss::kNone &&
      layer_boundary(layers.back().type) != LayerBoundary::kSink) {
    items.back().as_map().require("type").fail("the last layer must be " + output_layer_types() +
                                               ", got '" + layers.back().type + "'");
  }
  return layers;
}

}  // namespace

const std::vector<std::string>& init_schemes() {
  static const std::vector<std::string> kSchemes = {"pytorch_default", "he_uniform", "he_normal",
                                                    "xavier_uniform", "uniform"};
  return kSchemes;
}

NetworkSpec parse_network(const ConfigNode& node, const std::string& default_name,
                          const std::string& source) {
  ConfigMap m = node.as_map();
  m.allow_only({"name", "description", "input", "classes", "init", "layers"});
  NetworkSpec net;
  net.source = source;
  net.name = default_name;
  if (auto v = m.get("name")) net.name = v->as_nonempty_string();
  if (auto v = m.get("description")) net.description = v->as_string();
  if (auto v = m.get("input")) net.input = parse_input(*v);
  if (auto v = m.get("classes")) net.classes = v->as_int_in(key_range::kClasses);
  if (auto v = m.get("init")) net.init = parse_init(*v);
  net.layers = parse_layers(m.require("layers"));
  return net;
}

NetworkSpec load_network(const std::string& path) {
  auto origin = std::make_shared<ConfigOrigin>();
  origin->file = path;
  ConfigNode top(load_yaml_file(path, "network"), "", origin);
  return parse_network(top, std::filesystem::path(path).stem().string(), path);
}

}  // namespace trainsim
