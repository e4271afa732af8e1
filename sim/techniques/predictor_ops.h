#pragma once
// ADA-GP's gradient predictor as ops: what its forward pass, its training and its update cost
// on a device. ADA-GP's own lowering, beside its numerics (gradient_predictor.h); the ops
// carry the predictor's roles (pred-fw, pred-bw, pred-update), which ADA-GP declares.
#include <cstdint>
#include <vector>

#include "sim/techniques/technique.h"
#include "sim/workload/op.h"

namespace trainsim {

/// The predictor's roles (TechniqueInfo::roles of the ADA-GP designs).
extern const TechniqueRole kPredictorRoles[3];

/// The ops of ADA-GP's gradient predictor for one layer (sim/techniques/gradient_predictor.h):
/// `samples` reorganized samples of in_h x in_w, averaged over a batch of `batch` (conv
/// layers), resized to size x size, a 3x3 conv to `channels`, ReLU and a dense layer with
/// `max_outputs` outputs of which the layer's `outputs` are computed (the paper masks and
/// skips the rest); the Adam update covers all of the predictor's parameters.
struct PredictorOps {
  std::vector<Op> forward;   ///< batch average + resize, conv, relu, dense
  std::vector<Op> backward;  ///< its training: dense bwd-weight / bwd-data, relu, conv bwd-weight
  std::vector<Op> update;    ///< Adam over its parameters
};
/// The predictor's parameters: conv 1 -> channels (3x3 + bias), dense channels*size*size ->
/// max_outputs (+ bias).
std::int64_t predictor_params(int size, int channels, int max_outputs);
PredictorOps lower_predictor(int layer, int samples, int in_h, int in_w, int batch, int size,
                             int channels, int outputs, int max_outputs, int word_bits,
                             bool resident_weights);

}  // namespace trainsim
