#include "sim/interop/onnx_network.h"

#include <yaml-cpp/yaml.h>

#include <memory>

#include "sim/core/error.h"
#include "sim/core/format.h"
#include "sim/interop/onnx_import.h"
#include "sim/workload/net_shape.h"
#include "sim/workload/network_config.h"
#include "sim/workload/network_yaml.h"
#include "sim/yaml/yaml_reader.h"

namespace trainsim {

NetworkSpec onnx_network(const std::string& path, const std::string& name) {
  return onnx_network(import_onnx(path, name), path);
}

NetworkSpec onnx_network(const OnnxImport& imported, const std::string& path) {
  // Errors the network parser finds name the model and the layer, not a line of the text.
  auto origin = std::make_shared<ConfigOrigin>();
  origin->file = path + " (imported)";
  ConfigNode node(YAML::Load(network_yaml(imported.network)), "network", origin);
  NetworkSpec net = parse_network(node, imported.network.name, path);
  net.source = path;
  // Every weight the model holds must have become a weight of a layer (an initializer the
  // importer misread would leave the two counts apart).
  const std::int64_t params = NetShape(net).param_count();
  if (params != imported.initializer_parameters)
    throw UserError(path + ": the network has " + grouped(params) +
                    " trainable parameters where the model's initializers hold " +
                    grouped(imported.initializer_parameters));
  return net;
}

std::string onnx_network_file(const OnnxImport& imported, const NetworkSpec& net) {
  std::string text = "# " + net.description + "\n";
  text += "# producer: " + (imported.producer.empty() ? "unknown" : imported.producer) +
          ", opset " + std::to_string(imported.opset) + "; " + std::to_string(net.layers.size()) +
          " layers, " + grouped(NetShape(net).param_count()) + " trainable parameters.\n";
  text +=
      "# Written by trainsim's ONNX importer: the training passes are trainsim's own layers'.\n";
  return text + network_yaml(net);
}

}  // namespace trainsim
