#pragma once
// The behaviour behind a TechniqueSpec: one training batch, numerics and op issue.
#include <array>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "sim/core/state_archive.h"
#include "sim/nn/network.h"
#include "sim/optim/optimizer.h"
#include "sim/spec/specs.h"

namespace trainsim {

/// What a technique works on for one batch. `pass.acts[0]` holds the batch's inputs.
struct BatchContext {
  Network<float>& net;
  Optimizer<float>& optimizer;
  const std::vector<Param<float>*>& params;
  ForwardPass<float>& pass;
  BackwardScratch<float>& scratch;
  const std::uint8_t* labels;
  int count;
};

/// Loss and correct predictions of the batch's forward passes (the current samples').
struct BatchResult {
  double loss_sum = 0;
  std::int64_t correct = 0;
};

/// The most phases a technique declares (TechniqueInfo::phases; ADA-GP's three).
inline constexpr int kMaxTechniquePhases = 3;

/// Counts a technique keeps per epoch (speculative backprop: hits, misses).
struct TechniqueCounts {
  std::int64_t steps = 0;   ///< sample steps
  std::int64_t hits = 0;    ///< speculative gradient kept
  std::int64_t misses = 0;  ///< speculative gradient discarded, normal backward ran
  std::int64_t cold = 0;    ///< no stored pass for the label yet: plain backward
  double max_distance = 0;  ///< largest mean |stored - current softmax| seen
  /// Batches in each of the technique's phases, in TechniqueInfo::phases order (ADA-GP: Warm
  /// Up, Phase BP, Phase GP).
  std::array<std::int64_t, kMaxTechniquePhases> phase_batches{};
  /// hits / (hits + misses); -1 when the technique does not speculate.
  double hit_rate() const;
};

/// A technique's per-layer figures of one epoch (ADA-GP: its predictor's quality), which only
/// the technique reads: TechniqueInfo::layer_stats formats and archives them.
class LayerStats {
 public:
  virtual ~LayerStats() = default;
};

class TrainingTechnique {
 public:
  virtual ~TrainingTechnique() = default;
  /// One batch: forward, gradients, update; every pass reported to net.observer().
  virtual BatchResult train_batch(BatchContext& ctx) = 0;
  /// Epoch `epoch` (0-based) is about to start (ADA-GP's schedule counts batches per epoch).
  virtual void on_epoch_begin(int epoch) {}
  /// The model's learning rate for the epoch about to run (the optimizer's schedule): a
  /// technique with optimizers of its own for the model's layers follows it.
  virtual void set_lr(double lr) {}
  /// The counts since the last call; resets them.
  TechniqueCounts take_counts() { return std::exchange(counts_, TechniqueCounts{}); }
  /// Per-layer statistics of its own model since the last call (TechniqueInfo::layer_stats
  /// formats them; ADA-GP: its predictor's quality); null for techniques without such a
  /// model. Resets them.
  virtual std::shared_ptr<const LayerStats> take_layer_stats() { return nullptr; }
  /// Bytes of extra storage the technique's hardware needs (the per-label store).
  virtual std::int64_t storage_bytes(int word_bytes) const { return 0; }
  /// Of them, the bytes kept in the accelerator's global buffer (the run checks they fit),
  /// and what they are in `what` (for the error).
  virtual std::int64_t buffer_bytes(int word_bytes, std::string* what) const { return 0; }
  /// Saves or restores what the technique carries from batch to batch and from epoch to
  /// epoch (sim/core/state_archive.h), for checkpoints. `model_optimizer` is the run's
  /// optimizer, the template of optimizers a technique makes for itself. Techniques without
  /// such state keep this one.
  virtual void checkpoint(StateArchive& a, const Optimizer<float>& model_optimizer) {
    a.value(counts_);
  }

 protected:
  TechniqueCounts counts_;
};

std::unique_ptr<TrainingTechnique> make_technique(const TechniqueSpec& spec, Network<float>& net);

/// The whole batch's forward pass, its loss and correct count, and the backward pass with
/// the batch's labels: every Param::grad holds the batch's true gradient afterwards.
BatchResult forward_backward(BatchContext& ctx);

/// Notifies the observer (if any) of the update of every layer with parameters and the end
/// of a training batch of `count` samples. Shared by the techniques.
void finish_batch(BatchContext& ctx);

}  // namespace trainsim
