#pragma once
// The layer types described by a LayerKind (sim/workload/layer_kind.h), one file each (types
// that differ only in a figure share one: the activations, the pools, the merges, the
// normalizations, the boundaries), found by name (layer_kinds.cpp); their YAML keys and
// numerics are in the layer registry (sim/nn/layer_registry.cpp).
#include <string>

#include "sim/workload/layer_kind.h"

namespace trainsim {

extern const LayerKind kDenseKind;            // dense.cpp
extern const LayerKind kConv2dKind;           // conv2d.cpp
extern const LayerKind kWindowPoolKind;       // pooling.cpp: maxpool2d, avgpool2d
extern const LayerKind kGlobalAvgPoolKind;    // pooling.cpp
extern const LayerKind kFlattenKind;          // flatten.cpp
extern const LayerKind kReluKind;             // activations.cpp: relu, leaky_relu
extern const LayerKind kSoftmaxKind;          // softmax.cpp
extern const LayerKind kBatchNormKind;        // normalization.cpp
extern const LayerKind kAddKind;              // merge.cpp
extern const LayerKind kConcatKind;           // merge.cpp
extern const LayerKind kResizeKind;           // resize.cpp
extern const LayerKind kSourceKind;           // boundary.cpp
extern const LayerKind kSinkKind;             // boundary.cpp
extern const LayerKind kConv2dTransposeKind;  // conv2d_transpose.cpp
extern const LayerKind kTanhKind;             // activations.cpp
extern const LayerKind kSigmoidKind;          // activations.cpp
extern const LayerKind kGeluKind;             // activations.cpp
extern const LayerKind kDropoutKind;          // dropout.cpp
extern const LayerKind kReshapeKind;          // reshape.cpp
extern const LayerKind kLinearKind;           // linear.cpp
extern const LayerKind kBatchedMatmulKind;    // batched_matmul.cpp
extern const LayerKind kLayerNormKind;        // normalization.cpp
extern const LayerKind kEmbeddingKind;        // embedding.cpp

/// The shape-level description of layer type `name`; std::logic_error for a type the layer
/// registry has and this index lacks (a network file's types are checked against the
/// registry when it is read).
const LayerKind& layer_kind(const std::string& name);

}  // namespace trainsim
