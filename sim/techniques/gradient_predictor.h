#pragma once
// ADA-GP's gradient predictor (Janfaza et al., MICRO '23, sections 3.3, 3.4 and 3.6): ONE small
// network, shared by every layer with parameters, that maps a layer's output activations to that
// layer's weight and bias gradients.
//
// Tensor reorganization (Fig. 6). Each output channel / unit of a layer is one predictor
// sample, so the predictor's "batch" is out_ch and its output is one filter's gradients:
//  * Conv2d(in_ch -> out_ch, k x k), output y (B, out_ch, H, W): y is averaged over the
//    batch (every sample contributes to the weight update) -> (out_ch, H, W); channel f is
//    sample f, a (1, H, W) map; its target is filter f's weight gradient (in_ch*k*k values,
//    the filter's row of the weight tensor) followed by its bias gradient.
//  * Dense(in -> out), output y (B, out): unit j is sample j. A batch mean would leave one
//    scalar per unit, too little signal, so the sample is the unit's B activations as a
//    (1, 1, B) map, SORTED: the batch order is a random shuffle, so only the distribution of
//    the unit's activations over the batch carries information, and sorting makes the map a
//    stable, permutation-invariant quantile curve the convolution can read. The target is
//    the unit's weight column (in values) followed by its bias gradient.
//
// The predictor: every sample is resized to (1, S, S) (adaptive average pooling along an
// axis longer than S, nearest-neighbour replication along a shorter one: fixed
// preprocessing, not trained), then Conv2d(1 -> C, 3x3, pad 1), ReLU, Flatten,
// Dense(C*S*S -> P_max). P_max is the largest per-sample target over the network's layers;
// a layer with P_l < P_max uses and trains only the first P_l outputs (the paper's mask).
//
// Scaling. True gradients are tiny and their scale differs by layer (and between weights
// and biases) by orders of magnitude, and it drifts as training converges. One shared
// predictor with an MSE loss on raw gradients would only learn the largest layer and treat
// the others as zero. So targets are normalised per layer, separately for weights and
// bias, by a running RMS of that layer's true gradients (an exponential moving average of
// the mean square, updated on every training call), and predictions are multiplied back by
// it. The predictor then only has to learn the gradients' pattern, and a prediction is
// always of the right magnitude. Inputs are normalised the same way (a running RMS of the
// layer's reorganized activations), so conv feature maps and dense quantile curves of very
// different scales land in the same range.
//
// Calibration. A prediction is multiplied by a per-layer gain g = clamp(<p, t> / <p, p>,
// 0, 1): running means (over the training calls, normalised units) of prediction x truth
// and prediction^2, measured on each batch BEFORE the predictor trains on it, so on data
// it has not fitted. g is the least-squares scale of the prediction onto the truth. While
// the predictor has not learnt a layer (its output uncorrelated with the true gradient) g
// stays near 0 and Phase GP applies a small update instead of noise at full gradient
// magnitude; once it predicts well g -> 1. Measured on LeNet-5 / MNIST, the conv layers'
// gains stay low (0-0.4) and the dense layers' reach 0.8-1. The gain is trainsim's addition:
// `predictor: {calibrate: false}` applies the de-normalised predictions as they are (g = 1),
// as the paper does.
#include <cstdint>
#include <vector>

#include "sim/nn/activation.h"
#include "sim/nn/conv2d.h"
#include "sim/nn/dense.h"
#include "sim/nn/network.h"
#include "sim/optim/adam.h"
#include "sim/spec/specs.h"

namespace trainsim {

/// Quality of one prediction against the true gradients of a layer.
struct PredictorError {
  /// Mean squared error in units of the layer's running gradient RMS (weights and bias each
  /// by their own), so 1.0 is about as bad as predicting zero, whatever the layer's scale.
  double mse = 0;
  /// Mean |pred - true| / (|true| + eps), eps = kMapeEps * the running RMS: near-zero true
  /// gradients would otherwise dominate the mean with arbitrarily large ratios.
  double mape = 0;
  /// Cosine similarity of the predicted and the true gradients (weights and bias as one
  /// vector, at their real scale, before the calibration gain): > 0 means the predicted
  /// update points downhill for this batch, 1 is the true direction.
  double cosine = 0;
};

class GradientPredictor {
 public:
  static constexpr double kMapeEps = 0.01;
  /// Weight of the newest batch in the running mean squares (about a 20-batch memory: short
  /// enough to follow the gradients' shrinking as training converges).
  static constexpr double kRmsRate = 0.05;

  GradientPredictor(const TechniqueSpec& spec, Network<float>& net, std::uint64_t seed);

  /// The calibration gain applied to layer `layer`'s predictions (see predict()); 1 without
  /// calibration.
  double gain(std::size_t layer) const;
  /// The running RMS that de-normalises layer `layer`'s predicted weight / bias gradients.
  float weight_scale(std::size_t layer) const { return w_scale(target(layer)); }
  float bias_scale(std::size_t layer) const { return b_scale(target(layer)); }
  /// The predictor's output of the last predict() or train() call, in normalised units:
  /// (samples, P_max), one row per sample. Public for tests.
  const Tensor<float>& last_output() const { return out_; }
  /// Predicts layer `layer`'s weight and bias gradients from its output activations `y`
  /// and writes them into its Param::grad (overwriting), summed over the batch like
  /// backprop's, scaled by the running RMS and the calibration gain.
  void predict(std::size_t layer, const Tensor<float>& y);
  /// Trains on the layer's current Param::grad (the true, batch-summed gradients): MSE, one
  /// Adam step. Returns the error of the prediction made before the step.
  PredictorError train(std::size_t layer, const Tensor<float>& y);

  /// Whether the predictor serves layer `layer`: a conv2d or dense layer (the paper's
  /// section 3.6). Other layers with parameters (batchnorm) are not predicted: in Phase GP
  /// they keep their weights.
  bool serves(std::size_t layer) const {
    return layer < targets_.size() && targets_[layer].layer != nullptr;
  }
  /// Predictor samples of a layer (its output channels or units); 0 for other layers.
  int samples(std::size_t layer) const;
  /// Targets per sample of a layer (P_l).
  int outputs(std::size_t layer) const;
  std::int64_t param_count() const;
  int max_outputs() const { return p_max_; }
  int size() const { return size_; }
  int channels() const { return channels_; }
  /// The predictor's own parameters (conv weight, bias, head weight, bias).
  std::vector<Param<float>*> params();
  /// Saves or restores what it learnt: parameters, Adam state, running scales and gains.
  void checkpoint(StateArchive& a);

  /// The reorganized, resized (but not yet normalised) input of layer `layer`: (samples,
  /// 1, S, S). Public for tests.
  void reorganize(std::size_t layer, const Tensor<float>& y, Tensor<float>& x) const;
  /// The reorganized true gradients of layer `layer`: (samples, P_l) row-major, from its
  /// Param::grad. Public for tests.
  void gather_targets(std::size_t layer, std::vector<float>& t) const;

 private:
  struct Target {
    Layer<float>* layer = nullptr;
    bool conv = false;
    int samples = 0;  // out channels / units
    int fan_in = 0;   // weight gradients per sample
    bool bias = false;
    double w_ms = 0, b_ms = 0, x_ms = 0;  // running mean squares (0: not seen yet)
    double pt = 0, pp = 0;  // running means of pred * target and pred^2 (normalised units)
  };
  const Target& target(std::size_t layer) const;
  void run(std::size_t layer, const Tensor<float>& y);  // forward into out_
  static void update_ms(double& ms, double batch_ms);
  float w_scale(const Target& t) const;
  float b_scale(const Target& t) const;

  int size_, channels_, p_max_ = 0;
  bool calibrate_;
  std::vector<Target> targets_;  // indexed by network layer
  Conv2d<float> conv_;
  LeakyRelu<float> relu_;
  Flatten<float> flatten_;
  Dense<float> head_;
  Adam<float> adam_;
  Tensor<float> x_, a1_, a2_, a3_, out_, d_out_, d3_, d2_, d1_;  // reused buffers
  std::vector<float> t_;
  std::vector<float> sorted_;
};

}  // namespace trainsim
