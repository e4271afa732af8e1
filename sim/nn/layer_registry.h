#pragma once
// The layer types a network YAML may name. The config parser uses `keys` to reject
// parameters that do not belong to a type; the network builder uses `make` to build it.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "sim/nn/layer.h"
#include "sim/spec/specs.h"

namespace trainsim {

/// How a network's last layer is trained: the loss it is fused with.
enum class OutputLoss : std::uint8_t {
  kNone,          ///< the layer cannot end a network with a loss
  kCrossEntropy,  ///< softmax: one output value per class
  kBinary,        ///< sigmoid: one value, the probability of the second of two classes
};

/// Where a layer type's data comes from or goes to when that is outside the network's
/// layers. Networks that time layers cut out of a larger model (a SCALE-Sim topology, whose
/// rows do not chain) need both ends: a tensor that exists without a producer, and outputs
/// whose gradients arrive from layers that are not simulated.
enum class LayerBoundary : std::uint8_t {
  kNone,    ///< an ordinary layer: reads layers above it or the network input
  kSource,  ///< reads nothing: its output (`shape`) is an input from outside the network,
            ///< produced by a layer that is not simulated, which wants its gradient back
  kSink,    ///< the last layer instead of softmax: takes the outputs in `from` out of the
            ///< network; their gradients come from outside (no loss op, no class output)
};

/// What code outside sim/nn and sim/workload may know of a layer type's computation without
/// naming the type: device models price ops by kernel class, techniques serve weighted layers
/// of some families only. A new type declares its family in its registry line.
enum class LayerFamily : std::uint8_t {
  kOther,          ///< element-wise functions, reshapes, graph plumbing, attention products
  kConv,           ///< a convolution over C x H x W (conv2d)
  kConvTranspose,  ///< a transposed convolution (conv2d_transpose)
  kDense,          ///< a fully connected layer on each sample's vector (dense)
  kLinear,         ///< a fully connected layer at every position (linear)
  kPool,           ///< max, average or global average pooling
  kNorm,           ///< a normalization with learnt scale and shift (batchnorm, layernorm)
};

struct LayerTypeInfo {
  std::string name;
  std::string description;
  std::vector<std::string> keys;  ///< YAML keys allowed besides `type` and `name`
  /// Builds the layer for its inputs' shapes (one per `from` layer; most types read one).
  std::unique_ptr<Layer<float>> (*make_float)(const LayerSpec&, const std::vector<Shape>& ins);
  std::unique_ptr<Layer<double>> (*make_double)(const LayerSpec&, const std::vector<Shape>& ins);
  LayerBoundary boundary = LayerBoundary::kNone;
  std::vector<std::string> required = {};  ///< keys without a default
  OutputLoss loss = OutputLoss::kNone;
  LayerFamily family = LayerFamily::kOther;
  /// `stride` defaults to `kernel` (pooling: non-overlapping windows are the usual intent).
  bool stride_defaults_to_kernel = false;
  /// The fewest layers `from` must name, if more than one (a merge of one input is a
  /// mistake); 1: `from` may be left out (the layer before).
  int min_inputs = 1;
};

/// The family of `type` (kOther for an unknown type).
LayerFamily layer_family(const std::string& type);

/// The boundary role of `type` (kNone for an unknown type).
LayerBoundary layer_boundary(const std::string& type);

/// All layer types, in a fixed order.
const std::vector<LayerTypeInfo>& layer_types();

/// The type called `name`, or nullptr.
const LayerTypeInfo* find_layer_type(const std::string& name);

/// The loss a network ending in a layer of type `name` trains with.
OutputLoss output_loss(const std::string& name);
/// "'softmax', 'sigmoid' or 'sink'": the types that can end a network, for messages.
std::string output_layer_types();

}  // namespace trainsim
