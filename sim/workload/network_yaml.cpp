#include "sim/workload/network_yaml.h"

#include "sim/nn/layer_registry.h"
#include "sim/workload/layer_fields.h"
#include "sim/yaml/yaml_emit.h"

namespace trainsim {

namespace {

void emit_layer(YAML::Emitter& out, const LayerSpec& layer) {
  // One flow mapping per layer keeps the layer list as readable as the shipped files.
  out << YAML::Flow << YAML::BeginMap;
  out << YAML::Key << Plain{"type"} << YAML::Value;
  emit_string(out, layer.type);
  out << YAML::Key << Plain{"name"} << YAML::Value;
  emit_string(out, layer.name);
  if (const LayerTypeInfo* info = find_layer_type(layer.type)) {
    for (const auto& key : info->keys) {
      if (key == "from" && layer.from.empty()) continue;  // sequential: the default
      out << YAML::Key << Plain{key} << YAML::Value;
      layer_field(key).write(out, layer);
    }
  }
  out << YAML::EndMap;
}

}  // namespace

void emit_network(YAML::Emitter& out, const NetworkSpec& net) {
  out << YAML::BeginMap;
  out << YAML::Key << Plain{"name"} << YAML::Value;
  emit_string(out, net.name);
  if (!net.description.empty()) {
    out << YAML::Key << Plain{"description"} << YAML::Value;
    emit_string(out, net.description);
  }
  out << YAML::Key << Plain{"input"} << YAML::Value << YAML::Flow << YAML::BeginSeq << net.input[0]
      << net.input[1] << net.input[2] << YAML::EndSeq;
  out << YAML::Key << Plain{"classes"} << YAML::Value << net.classes;
  out << YAML::Key << Plain{"init"} << YAML::Value << YAML::BeginMap;
  out << YAML::Key << Plain{"scheme"} << YAML::Value;
  emit_string(out, net.init.scheme);
  out << YAML::Key << Plain{"scale"} << YAML::Value;
  emit_double(out, net.init.scale);
  out << YAML::EndMap;
  out << YAML::Key << Plain{"layers"} << YAML::Value << YAML::BeginSeq;
  for (const auto& layer : net.layers) emit_layer(out, layer);
  out << YAML::EndSeq;
  out << YAML::EndMap;
}

std::string network_yaml(const NetworkSpec& net) {
  YAML::Emitter out;
  emit_network(out, net);
  return std::string(out.c_str()) + "\n";
}

}  // namespace trainsim
