#pragma once
// Told about every computation the network and the training loop perform, as they perform
// it. This is how the op stream is produced: the accelerator model sees exactly the passes
// the numerics executed (a skipped backward-data of the first layer is skipped in both),
// because it is driven by the same calls.
#include <cstddef>
#include <cstdint>

namespace trainsim {

enum class Phase { kTrain, kEval };

class PassObserver {
 public:
  virtual ~PassObserver() = default;
  /// Layer `layer` ran its forward pass on a batch of `batch` samples.
  virtual void on_forward(std::size_t layer, int batch) = 0;
  /// The loss gradient at the softmax layer `layer` (fused softmax + cross-entropy).
  virtual void on_loss_grad(std::size_t layer, int batch) = 0;
  /// backward_data of `layer` (for element-wise layers: the activation derivative).
  virtual void on_backward_data(std::size_t layer, int batch) = 0;
  virtual void on_backward_weight(std::size_t layer, int batch) = 0;
  /// The gradients of the several layers reading `layer` were summed (graph networks).
  virtual void on_grad_sum(std::size_t layer, int batch) = 0;
  /// The optimizer updated the parameters of `layer`.
  virtual void on_update(std::size_t layer, int batch) = 0;
  /// A training step or an evaluation batch is complete.
  virtual void on_batch_end(Phase phase, int batch) = 0;

  // Hooks of techniques that do more than backprop. Defaults do nothing, so plain observers
  // need not care.
  /// Passes reported from now on run on `unit` (0: the main array, 1: the technique's
  /// second unit). `discarded`: the work will be thrown away (still timed and priced).
  virtual void on_unit(int unit, bool discarded) {}
  /// The work issued so far (on both units) completes before anything issued next: the
  /// units run concurrently up to here.
  virtual void on_join() {}
  /// One sample step begins / ends (for per-step timing).
  virtual void on_step(bool begin) {}
  /// The technique did work of its own for `layer`: its operation `what` (numbered by the
  /// technique) of size `n` (speculative backprop: a compare of n values, a store of n words;
  /// ADA-GP: its predictor's forward, backward or update on n samples). The technique lowers
  /// it to ops (TechniqueInfo::lower_ops).
  virtual void on_technique_op(std::size_t layer, int what, std::int64_t n) {}
  /// The technique phase of the batch about to run (TechniqueInfo::phases; ADA-GP: 0 warm-up,
  /// 1 Phase BP, 2 Phase GP).
  virtual void on_phase(int phase) {}
};

}  // namespace trainsim
