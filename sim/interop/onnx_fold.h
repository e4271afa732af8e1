#pragma once
// Constant folding of an ONNX graph's integer arithmetic (sim/interop/onnx_import.cpp's first
// step). Exports compute shapes, position ids and masks from the input's shape and from
// integer buffers: Shape, Gather, Unsqueeze, Concat, Slice, Expand, Where, ... ONNX 1.12's
// shape inference follows some of it (Reshape targets) but not all: a Slice of a buffer by
// ends computed from Shape gets no shape, and every tensor after it none either (BERT's
// position ids). Evaluating those nodes once, on the model with its batch fixed, turns their
// outputs into initializers, after which shape inference has what it needs.
namespace onnx {
class ModelProto;
}

namespace trainsim {

/// Replaces every node whose inputs are integer or boolean constants (initializers, Constant
/// nodes, folded outputs) or whose only input is a Shape of a tensor of known dimensions, and
/// whose operator is one the folder evaluates, by initializers of its outputs; repeats shape
/// inference and folding until nothing more folds. Returns the number of nodes folded.
/// Tensors past 2^20 values are left to the importer (it skips integer nodes anyway).
/// std::invalid_argument (one line naming the node or tensor) for a shape no network has
/// (check_onnx_shapes()), before ONNX's shape inference would build it.
int fold_integer_constants(onnx::ModelProto& model);

/// The shapes the model's nodes take from constants (Reshape, Expand, Tile targets,
/// ConstantOfShape, Range) and the inferred ones: at most 32 dimensions, each below 2^31;
/// std::invalid_argument otherwise. ONNX 1.12's shape inference builds what it is given.
void check_onnx_shapes(const onnx::ModelProto& model);

}  // namespace trainsim
