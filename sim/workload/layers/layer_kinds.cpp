#include "sim/workload/layers/layer_kinds.h"

#include <stdexcept>
#include <utility>

namespace trainsim {

// Keyed by the layer registry's type names (sim/nn/layer_registry.cpp); the registry sits
// below the workload, so the workload keeps its own index of the types it describes.
const LayerKind& layer_kind(const std::string& name) {
  static const std::pair<const char*, const LayerKind*> kinds[] = {
      {"dense", &kDenseKind},
      {"conv2d", &kConv2dKind},
      {"maxpool2d", &kWindowPoolKind},
      {"avgpool2d", &kWindowPoolKind},
      {"global_avgpool", &kGlobalAvgPoolKind},
      {"flatten", &kFlattenKind},
      {"relu", &kReluKind},
      {"leaky_relu", &kReluKind},
      {"softmax", &kSoftmaxKind},
      {"batchnorm", &kBatchNormKind},
      {"add", &kAddKind},
      {"concat", &kConcatKind},
      {"resize", &kResizeKind},
      {"source", &kSourceKind},
      {"sink", &kSinkKind},
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
    if (name == type) return *kind;
  throw std::logic_error("layer type '" + name + "' has no shape description (layer_kinds.cpp)");
}

}  // namespace trainsim
