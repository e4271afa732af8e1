#include "sim/workload/layers/layer_kinds.h"

#include <utility>

namespace trainsim {

// Keyed by the layer registry's type names (sim/nn/layer_registry.cpp); the registry sits
// below the workload, so the workload keeps its own index of the types it describes.
const LayerKind* find_layer_kind(const std::string& name) {
  static const std::pair<const char*, const LayerKind*> kinds[] = {
      {"conv2d_transpose", &kConv2dTransposeKind},
      {"tanh", &kTanhKind},
      {"sigmoid", &kSigmoidKind},
      {"gelu", &kGeluKind},
      {"dropout", &kDropoutKind},
      {"reshape", &kReshapeKind},
      {"linear", &kLinearKind},
      {"batched_matmul", &kBatchedMatmulKind},
      {"layernorm", &kLayerNormKind},
      {"embedding", &kEmbeddingKind},
  };
  for (const auto& [type, kind] : kinds)
    if (name == type) return kind;
  return nullptr;
}

}  // namespace trainsim
