#pragma once
// The layer types described by a LayerKind (sim/workload/layer_kind.h), one file each (the
// element-wise activations share one), found by name (layer_kinds.cpp); their YAML keys and
// numerics are in the layer registry (sim/nn/layer_registry.cpp).
#include <string>

#include "sim/workload/layer_kind.h"

namespace trainsim {

extern const LayerKind kConv2dTransposeKind;  // conv2d_transpose.cpp
extern const LayerKind kTanhKind;             // activations.cpp
extern const LayerKind kSigmoidKind;          // activations.cpp
extern const LayerKind kGeluKind;             // activations.cpp
extern const LayerKind kDropoutKind;          // dropout.cpp
extern const LayerKind kReshapeKind;          // reshape.cpp
extern const LayerKind kLinearKind;           // linear.cpp
extern const LayerKind kBatchedMatmulKind;    // batched_matmul.cpp
extern const LayerKind kLayerNormKind;        // layernorm.cpp
extern const LayerKind kEmbeddingKind;        // embedding.cpp

/// The shape-level description of layer type `name` (nullptr: NetShape and the lowering
/// know the type themselves, or it is unknown).
const LayerKind* find_layer_kind(const std::string& name);

}  // namespace trainsim
