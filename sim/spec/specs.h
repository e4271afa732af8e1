#pragma once
// Parsed, validated configuration. Specs are plain immutable values: the parsers (sim/config/,
// and next to the subsystem that owns the keys: networks in sim/workload/, accelerators in
// sim/accel/) are the only code that builds them, and every default lives there, so a spec
// always holds the fully resolved value of every key. Models and the training loop read
// specs; they never touch YAML. This folder includes no subsystem, so every subsystem can
// include its spec (docs/DESIGN.md#layers).
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "sim/spec/accel_spec.h"
#include "sim/spec/default_technique.h"
#include "sim/spec/system_spec.h"

namespace trainsim {

/// One layer of a network. Which fields apply depends on `type`; the parser rejects keys
/// that do not belong to the type, so unused fields keep their defaults.
struct LayerSpec {
  std::string type;     ///< `trainsim list layers`: dense, conv2d, ..., add, concat, batchnorm
  std::string name;     ///< unique per network; default "<type><index>"
  int units = 0;        ///< dense, linear: output features; embedding: vector length
  int filters = 0;      ///< conv2d, conv2d_transpose: output channels
  int kernel = 0;       ///< conv2d / pools: kernel height (YAML `kernel: k` or `[kh, kw]`)
  int kernel_w = -1;    ///< conv2d / pools: kernel width; -1: as `kernel` (square)
  int stride = 1;       ///< conv2d / pools (pools default to stride = kernel)
  int padding = 0;      ///< conv2d / pools: zero padding above and below (`padding: p`/`[ph, pw]`)
  int padding_w = -1;   ///< conv2d / pools: zero padding left and right; -1: as `padding`
  int groups = 1;       ///< conv2d: grouped convolution (groups = channels: depthwise)
  double slope = 0.01;  ///< leaky_relu: negative slope
  bool bias = true;     ///< dense / conv2d
  std::array<int, 2> size{{0, 0}};  ///< resize: output height and width
  int output_padding = 0;    ///< conv2d_transpose: rows / columns added below and right (< stride)
  int vocab = 0;             ///< embedding: rows of the table (token ids 0 .. vocab - 1)
  int heads = 1;             ///< batched_matmul: independent products per sample (attention heads)
  bool transpose_b = false;  ///< batched_matmul: multiply by the second input's transpose
  double rate = 0.1;         ///< dropout: probability that a value is dropped
  /// source: channels, height, width of its tensor; reshape: of its output
  std::array<int, 3> shape{{0, 0, 0}};
  /// The layers whose outputs this layer reads ("input": the network input). Empty: the
  /// previous layer's (a sequential network). add / concat take two or more.
  std::vector<std::string> from;
  int kernel_width() const { return kernel_w < 0 ? kernel : kernel_w; }
  int padding_width() const { return padding_w < 0 ? padding : padding_w; }
  bool square() const { return kernel == kernel_width() && padding == padding_width(); }
};

/// Weight initialisation. Biases start at zero except for `pytorch_default`.
struct InitSpec {
  /// pytorch_default: W, b ~ U(-1/sqrt(fan_in), 1/sqrt(fan_in));
  /// he_uniform: W ~ U(-sqrt(6/fan_in), +); he_normal: N(0, 2/fan_in);
  /// xavier_uniform: W ~ U(-sqrt(6/(fan_in+fan_out)), +); uniform: W ~ U(-scale, scale).
  std::string scheme = "pytorch_default";
  double scale = 0.5;  ///< only for `uniform`
};

struct NetworkSpec {
  std::string name;
  std::string description;                ///< free text (trainsim list networks)
  std::string source;                     ///< file it was read from ("<inline>" if inline)
  std::array<int, 3> input{{1, 28, 28}};  ///< channels, height, width of one sample
  int classes = 10;
  InitSpec init;
  std::vector<LayerSpec> layers;  ///< the last one is always `softmax` (fused with the loss)
  /// Some layer reads other layers than its predecessor (residual adds, concatenations).
  bool graph() const {
    for (const auto& l : layers)
      if (!l.from.empty()) return true;
    return false;
  }
};

struct DatasetSpec {
  std::string name;              ///< a registered dataset: mnist, fashion-mnist
  std::string path;              ///< directory holding the four IDX files; "" = <data root>/<name>
  std::int64_t train_limit = 0;  ///< use only the first N training samples (0 = all)
  std::int64_t test_limit = 0;   ///< use only the first N test samples (0 = all)
};

struct OptimizerSpec {
  std::string kind = "sgd";  ///< sgd, adam
  double lr = 0.01;
  double momentum = 0.0;          ///< sgd
  double weight_decay = 0.0;      ///< L2, added to the gradient before clipping
  std::string reduction = "sum";  ///< how per-sample gradients combine over a batch: sum, mean
  double clip = 0.0;              ///< element-wise clip to [-clip, clip]; 0 = off
  double beta1 = 0.9;             ///< adam
  double beta2 = 0.999;           ///< adam
  double epsilon = 1e-8;          ///< adam
  /// Step schedule (PyTorch's MultiStepLR stepped per epoch): after each epoch listed (1-based,
  /// increasing), the learning rate is multiplied by lr_factor.
  std::vector<int> lr_steps;
  double lr_factor = 0.1;
  /// The learning rate of epoch `epoch` (1-based) under the schedule.
  double lr_at(int epoch) const {
    double r = lr;
    for (int e : lr_steps)
      if (e < epoch) r *= lr_factor;
    return r;
  }
};

struct TrainingSpec {
  int epochs = 1;
  int batch_size = 15;
  std::uint64_t seed = 1;  ///< initialisation and shuffling
  bool shuffle = true;     ///< reshuffle the training set every epoch
  /// Threads of the numerics (the config's default: all cores, see default_threads()).
  /// Results do not depend on it.
  int threads = 1;
  OptimizerSpec optimizer;
};

/// The training technique and its parameters (see sim/techniques/technique.h).
struct TechniqueSpec {
  std::string kind = kDefaultTechnique;  ///< bp, bp-sample, specbp, ... (trainsim list techniques)
  // specbp (speculative backpropagation, Purkayastha et al. 2025):
  double threshold = 0.25;  ///< hit if mean |stored softmax - current softmax| <= threshold
  /// Where the speculative backward pass runs: "own" (a second PE array beside the main
  /// one) or "shared" (the main array, after the forward pass).
  std::string unit = "own";
  int unit_rows = 0, unit_cols = 0;  ///< the own array's size; 0 = as the main array
  std::string store = "buffer";      ///< the per-label store: "buffer" (on chip) or "dram"
  // adagp-max / adagp-efficient / adagp-low (ADA-GP, Janfaza et al., MICRO '23):
  int warmup_epochs = 1;  ///< Warm Up: backprop only, predictor trained (paper: a few epochs)
  /// Phase GP : Phase BP batch ratios after the warm-up, as (k, m, epochs); epochs 0 = for
  /// the rest of training. Default 4:1 for 4 epochs, 3:1 for 4, 2:1 for 4, then 1:1.
  std::vector<std::array<int, 3>> schedule{{{4, 1, 4}}, {{3, 1, 4}}, {{2, 1, 4}}, {{1, 1, 0}}};
  int predictor_size = 8;      ///< side of the square map each predictor sample is resized to
  int predictor_channels = 4;  ///< channels of the predictor's conv layer
  double predictor_lr = 1e-4;  ///< Adam learning rate of the predictor (paper: 1e-4)
  /// Ablations of Phase GP, to measure what the predicted gradients contribute: "skip"
  /// leaves the weights alone (the batches only run forward); "zero" steps each layer's
  /// optimizer with a zero gradient, so only its state (SGD momentum, Adam's moments) moves
  /// the weights, as it does under the predictions.
  std::string phase_gp = "predict";
  /// `phase_gp: oracle` (a reference, not hardware): Phase GP backprops the batch and applies
  /// p = m |g| (rho g/|g| + sqrt(1 - rho^2) n), n a random unit vector orthogonal to the
  /// layer's true gradient g, drawn afresh each batch or (persistent) one fixed direction
  /// per layer, projected off each batch's g.
  double oracle_cosine = 1.0;     ///< rho, in [-1, 1]
  double oracle_magnitude = 1.0;  ///< m, >= 0
  bool oracle_persistent = false;
  /// Scale predictions by the per-layer least-squares gain (trainsim's addition; the paper
  /// applies the raw de-normalised predictions, calibrate: false).
  bool predictor_calibrate = true;
  /// Measure Phase GP's applied gradients against the batch's true gradient (an unobserved,
  /// untimed backward pass per Phase GP batch) and the true gradients' persistence; the
  /// training is bit-identical either way.
  bool diagnostics = false;

  /// "bp", "specbp@0.25": the name used for compare variants.
  std::string label() const;
  bool operator==(const TechniqueSpec& o) const {
    return kind == o.kind && threshold == o.threshold && unit == o.unit &&
           unit_rows == o.unit_rows && unit_cols == o.unit_cols && store == o.store &&
           warmup_epochs == o.warmup_epochs && schedule == o.schedule &&
           predictor_size == o.predictor_size && predictor_channels == o.predictor_channels &&
           predictor_lr == o.predictor_lr && phase_gp == o.phase_gp &&
           oracle_cosine == o.oracle_cosine && oracle_magnitude == o.oracle_magnitude &&
           oracle_persistent == o.oracle_persistent &&
           predictor_calibrate == o.predictor_calibrate && diagnostics == o.diagnostics;
  }
};

/// How the training is timed: on which accelerator, with which dataflow, training technique
/// and fidelity. `trainsim train` ignores it (numerics only); `trainsim run` uses it.
struct SimulationSpec {
  AcceleratorSpec accelerator;  ///< resolved; default preset adagp_ws180
  std::string dataflow;         ///< ws, os, is, rs; default: the accelerator's own
  TechniqueSpec technique;
  std::string fidelity = "fast";  ///< fast | cycle
  /// Keep tensors on chip between consecutive ops when they fit (tiled memory model).
  bool residency = true;
};

struct OutputSpec {
  std::string dir;  ///< default "runs/<experiment name>"
};

struct HypeSpec;

struct ExperimentSpec {
  std::string name;
  std::string source;  ///< experiment file path
  /// "float": train for real (trainsim train / run). "none": shape only: `trainsim run`
  /// times the whole training schedule from the layer shapes, with no tensors at all
  /// (sim/train/shape_only_run.h); accuracy is not known.
  std::string numerics = "float";
  NetworkSpec network;
  DatasetSpec dataset;
  TrainingSpec training;
  SimulationSpec sim;
  /// Several devices (absent: the one accelerator of `sim`) and the pipeline over them.
  SystemSpec system;
  PipelineSpec pipeline;
  /// A hybrid GPU + offload-device system for Hype-training (sim/hype/hype_spec.h); null:
  /// none.
  std::shared_ptr<const HypeSpec> hype;
  OutputSpec output;
  /// What loading decided that the user should hear (e.g. technique keys an override
  /// dropped); printed in the run header, not part of the configuration.
  std::vector<std::string> notes;
};

}  // namespace trainsim
