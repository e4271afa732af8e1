#pragma once
// The layer types described by a LayerKind (sim/workload/layer_kind.h), one file each (the
// element-wise activations share one), listed in the layer registry
// (sim/nn/layer_registry.cpp).
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

}  // namespace trainsim
