#pragma once
// ONNX models as trainsim networks (`network: {onnx: FILE}`, `trainsim import FILE.onnx`;
// docs/interop.md, "ONNX import"). ONNX graphs hold the forward pass only; the training
// passes (backward-data, backward-weight, update) come from trainsim's own layer types, so an
// imported model trains and is timed like a hand-written network file.
//
// The file is read with Debian's ONNX and protobuf libraries; its integer arithmetic (shapes,
// position ids, masks) is folded to constants (onnx_fold.h) and its shapes inferred with
// ONNX's shape inference. Each node becomes one layer (Conv -> conv2d, Gemm or MatMul with a
// constant weight -> dense or linear, BatchNormalization -> batchnorm, Gather from a table ->
// embedding, ...: onnx_operators() lists them); Identity and inference-mode Dropout pass
// their input on; a MatMul followed by the Add of a constant vector is one layer with a bias;
// GELU's five nodes are one gelu layer. The Reshape and Transpose nodes of attention's head
// split are views of a layer's output that batched_matmul reads in place, not layers. The last
// layer is always trainsim's softmax (fused with the cross-entropy loss): a model that ends in
// logits gets one appended. Initializers count only by their shapes (the weights are trainsim's to
// initialise), so a model exported without its weights' values imports the same.
#include <cstdint>
#include <string>
#include <vector>

#include "sim/spec/specs.h"

namespace trainsim {

struct OnnxOperator {
  const char* op_type;
  const char* becomes;  ///< the trainsim layer type, or how the node is handled
  const char* limits;   ///< what the importer refuses ("" if nothing)
};

/// The operators the importer takes, for `trainsim import --help` and docs/interop.md.
const std::vector<OnnxOperator>& onnx_operators();

struct OnnxImport {
  NetworkSpec network;
  /// Trainable parameters as the ONNX initializers give them (batch norm's running statistics
  /// excluded): equal to the network's own count when every weight was understood.
  std::int64_t initializer_parameters = 0;
  std::string producer;  ///< producer_name and producer_version of the file
  std::int64_t opset = 0;
  int nodes = 0;   ///< the graph's nodes in the file
  int folded = 0;  ///< integer (shape and index) nodes evaluated to constants before import
};

/// Reads `path` (a binary ONNX ModelProto). The network is named `name` (the file's stem if
/// empty). UserError, one line naming the file and the node, for a file that is not a
/// complete ONNX model, a graph with other than one data input or one output, a dimension
/// that is not fixed (other than the batch), or a node the importer cannot turn into a layer
/// (its operator, or the attribute or input it cannot take).
OnnxImport import_onnx(const std::string& path, const std::string& name = "");
/// The same for a model's bytes; `where` stands for the file in messages and the name.
OnnxImport import_onnx_bytes(const std::string& bytes, const std::string& where,
                             const std::string& name = "");

}  // namespace trainsim
