#pragma once
// The layer types a network YAML may name. The config parser uses `keys` to reject
// parameters that do not belong to a type; the network builder uses `make` to build it.
#include <memory>
#include <string>
#include <vector>

#include "sim/config/specs.h"
#include "sim/nn/layer.h"

namespace trainsim {

struct LayerTypeInfo {
  std::string name;
  std::string description;
  std::vector<std::string> keys;  ///< YAML keys allowed besides `type` and `name`
  std::unique_ptr<Layer<float>> (*make_float)(const LayerSpec&, const Shape& in);
  std::unique_ptr<Layer<double>> (*make_double)(const LayerSpec&, const Shape& in);
};

/// All layer types, in a fixed order.
const std::vector<LayerTypeInfo>& layer_types();

/// The type called `name`, or nullptr.
const LayerTypeInfo* find_layer_type(const std::string& name);

}  // namespace trainsim
