#pragma once
// Parsed, validated configuration. Specs are plain immutable values: the parsers (next to the
// subsystem that owns the keys, each an experiment section, sim/config/experiment_parser.h:
// networks in sim/workload/, accelerators in sim/accel/) are the only code that builds them,
// and every default lives there, so a spec always holds the fully resolved value of every key.
// Models and the training loop read specs; they never touch YAML. This folder includes no
// subsystem, so every subsystem can include its spec (docs/DESIGN.md#layers).
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

/// The batches of one epoch: `full` of the batch size and, if `rest` > 0, a last, smaller one
/// of `rest` samples.
struct EpochBatches {
  std::int64_t full = 0, rest = 0;
  std::int64_t count() const { return full + (rest > 0 ? 1 : 0); }
};

struct TrainingSpec {
  int epochs = 1;
  int batch_size = 15;
  /// The test set's batch size after every epoch. Evaluation runs no backward pass, so big
  /// batches are cheaper; its cost is reported apart from training's (phase eval).
  int eval_batch_size = 500;
  std::uint64_t seed = 1;  ///< initialisation and shuffling
  bool shuffle = true;     ///< reshuffle the training set every epoch
  /// Leave out an epoch's last batch when it is smaller than batch_size (PyTorch's
  /// DataLoader drop_last): its samples are not trained on that epoch.
  bool drop_last = false;
  /// An epoch of `samples` training samples in batches; UserError naming the keys when
  /// drop_last leaves no batch at all.
  EpochBatches epoch_batches(std::int64_t samples) const;
  /// The samples an epoch of `samples` trains on (all of them unless drop_last).
  std::int64_t trained_samples(std::int64_t samples) const {
    const EpochBatches b = epoch_batches(samples);
    return b.full * batch_size + b.rest;
  }
  /// Threads of the numerics (the config's default: all cores, see default_threads()).
  /// Results do not depend on it.
  int threads = 1;
  OptimizerSpec optimizer;
};

/// A technique's own settings. Each technique defines its struct beside its code
/// (sim/techniques/), derived from SettingsOf, parses and writes its keys into it
/// (TechniqueInfo::parse_keys, emit_keys), and reads it with TechniqueSpec::get(); the shared
/// spec names none of them.
struct TechniqueSettings {
  virtual ~TechniqueSettings() = default;
  virtual std::unique_ptr<TechniqueSettings> clone() const = 0;
  /// The same type's defaults.
  virtual std::unique_ptr<TechniqueSettings> defaults() const = 0;
  virtual bool equals(const TechniqueSettings& o) const = 0;
};

/// clone, defaults and equals from T's copy, default constructor and operator==.
template <typename T>
struct SettingsOf : TechniqueSettings {
  std::unique_ptr<TechniqueSettings> clone() const override {
    return std::make_unique<T>(static_cast<const T&>(*this));
  }
  std::unique_ptr<TechniqueSettings> defaults() const override { return std::make_unique<T>(); }
  bool equals(const TechniqueSettings& o) const override {
    const T* t = dynamic_cast<const T*>(&o);
    return t != nullptr && static_cast<const T&>(*this) == *t;
  }
};

/// The training technique (see sim/techniques/technique.h): its kind, the array its own work
/// runs on, and the settings its kind defines.
struct TechniqueSpec {
  std::string kind = kDefaultTechnique;  ///< bp, bp-sample, specbp, ... (trainsim list techniques)
  /// Where the technique's own work runs, for a kind that declares a unit: "own" (an array of
  /// its own beside the main one) or "shared" (the main array).
  std::string unit = "own";
  int unit_rows = 0, unit_cols = 0;  ///< the own array's size; 0 = as the main array

  TechniqueSpec() = default;
  TechniqueSpec(const TechniqueSpec& o)
      : kind(o.kind),
        unit(o.unit),
        unit_rows(o.unit_rows),
        unit_cols(o.unit_cols),
        settings_(o.settings_ ? o.settings_->clone() : nullptr) {}
  TechniqueSpec& operator=(const TechniqueSpec& o) {
    if (this != &o) *this = TechniqueSpec(o);
    return *this;
  }
  TechniqueSpec(TechniqueSpec&&) = default;
  TechniqueSpec& operator=(TechniqueSpec&&) = default;

  /// The settings of type T: those parsed, or T's defaults if none of that type were.
  template <typename T>
  const T& get() const {
    if (const T* t = dynamic_cast<const T*>(settings_.get())) return *t;
    static const T defaults{};
    return defaults;
  }
  /// The settings of type T to change (T's defaults first if the spec holds none of that
  /// type, e.g. after its kind changed).
  template <typename T>
  T& own() {
    T* t = dynamic_cast<T*>(settings_.get());
    if (!t) {
      auto fresh = std::make_unique<T>();
      t = fresh.get();
      settings_ = std::move(fresh);
    }
    return *t;
  }

  /// "bp", "specbp@0.25": the name used for compare variants.
  std::string label() const;
  /// Settings absent on one side equal their type's defaults on the other.
  bool operator==(const TechniqueSpec& o) const {
    if (kind != o.kind || unit != o.unit || unit_rows != o.unit_rows || unit_cols != o.unit_cols)
      return false;
    if (!settings_ && !o.settings_) return true;
    if (settings_ && o.settings_) return settings_->equals(*o.settings_);
    const TechniqueSettings& s = settings_ ? *settings_ : *o.settings_;
    return s.equals(*s.defaults());
  }

 private:
  std::unique_ptr<TechniqueSettings> settings_;
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
