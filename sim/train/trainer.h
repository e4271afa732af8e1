#pragma once
// The numerics-only training loop: mini-batch backprop over a dataset, one epoch at a time,
// with test-set evaluation after each epoch. Deterministic for a given experiment spec:
// initialisation and the per-epoch shuffle both derive from training.seed, and the layers'
// parallel loops give the same bytes for any `training.threads` (sim/core/parallel.h).
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "sim/core/state_archive.h"
#include "sim/core/thread_pool.h"
#include "sim/data/dataset.h"
#include "sim/nn/network.h"
#include "sim/optim/optimizer.h"
#include "sim/spec/specs.h"
#include "sim/techniques/training_technique.h"

namespace trainsim {

struct EvalMetrics {
  std::int64_t samples = 0;
  double loss = 0;      ///< mean cross-entropy per sample
  double accuracy = 0;  ///< fraction correct
};

struct EpochMetrics {
  int epoch = 0;  ///< 1-based
  std::int64_t batches = 0;
  EvalMetrics train;  ///< running loss/accuracy over the epoch's training batches
  EvalMetrics test;
  double train_seconds = 0;  ///< wall time; kept out of the deterministic outputs
  /// Multiply-adds the training batches computed (Network::take_macs).
  std::int64_t train_macs = 0;
  double test_seconds = 0;
  TechniqueCounts technique;  ///< sample steps, and speculative backprop's hits and misses
  /// The technique's per-layer statistics (TechniqueInfo::layer_stats), if it reports any.
  std::shared_ptr<const LayerStats> layer_stats;
};

/// Reported after every batch (for progress bars).
struct BatchProgress {
  std::int64_t batch = 0, batches = 0;
  double loss = 0, accuracy = 0;  ///< running over the epoch so far
};

class Trainer {
 public:
  Trainer(const ExperimentSpec& spec, const Dataset& data);
  ~Trainer();

  /// One pass over the training split, then evaluation on the test split.
  EpochMetrics run_epoch(const std::function<void(const BatchProgress&)>& on_batch = {});
  EvalMetrics evaluate(const DataSplit& split);

  Network<float>& network() { return network_; }
  std::int64_t batches_per_epoch() const;
  int epochs_done() const { return epoch_; }
  /// Threads the numerics run on (training.threads).
  int threads() const { return pool_->size(); }
  const TrainingTechnique& technique() const { return *technique_; }
  const ExperimentSpec& spec() const { return spec_; }
  /// Saves or restores the state that carries over between epochs (weights, optimizer,
  /// technique, shuffle order and RNG, epoch count); defined in sim/train/checkpoint.cpp.
  void checkpoint(StateArchive& a);

 private:
  void load_batch(const DataSplit& split, const std::int64_t* indices, int count);

  const ExperimentSpec& spec_;
  const Dataset& data_;
  std::unique_ptr<ThreadPool> pool_;
  Network<float> network_;
  std::unique_ptr<Optimizer<float>> optimizer_;
  std::unique_ptr<TrainingTechnique> technique_;
  std::vector<Param<float>*> params_;
  Rng shuffle_rng_;
  std::vector<std::int64_t> order_;
  std::vector<std::uint8_t> batch_labels_;
  ForwardPass<float> pass_;
  BackwardScratch<float> scratch_;
  int epoch_ = 0;
};

}  // namespace trainsim
