#pragma once
// An ONNX model as a network: imported (onnx_import.h), written as a network file and parsed
// back by the network-file parser, so the two paths cannot accept different networks.
#include <string>

#include "sim/spec/specs.h"

namespace trainsim {

struct OnnxImport;

/// The model at `path` as a network (named `name`, or the model's own name), checked as a
/// network file is; its trainable parameters must equal the model's initializers' (UserError
/// otherwise).
NetworkSpec onnx_network(const std::string& path, const std::string& name = "");
/// The same for a model already imported from `path`.
NetworkSpec onnx_network(const OnnxImport& imported, const std::string& path);
/// The network file `trainsim import` writes (and trainsim.from_torch returns): a header
/// naming the model, its producer and opset, then network_yaml(net).
std::string onnx_network_file(const OnnxImport& imported, const NetworkSpec& net);

}  // namespace trainsim
