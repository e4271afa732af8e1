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
  /// The optimizer updated the parameters of `layer`.
  virtual void on_update(std::size_t layer, int batch) = 0;
  /// A training step or an evaluation batch is complete.
  virtual void on_batch_end(Phase phase, int batch) = 0;

  // Technique hooks (speculative backprop). Defaults do nothing, so plain observers need not
  // care.
  /// Passes reported from now on run on `unit` (0: the main array, 1: the technique's
  /// second unit). `discarded`: the work will be thrown away (still timed and priced).
  virtual void on_unit(int unit, bool discarded) {}
  /// The work issued so far (on both units) completes before anything issued next: the
  /// units run concurrently up to here.
  virtual void on_join() {}
  /// One sample step begins / ends (for per-step timing).
  virtual void on_step(bool begin) {}
  /// Compare two probability vectors of `values` entries (vector unit).
  virtual void on_compare(std::size_t layer, int values) {}
  /// Write a whole forward pass of `words` words into the per-label store.
  virtual void on_store(std::size_t layer, std::int64_t words) {}
  /// ADA-GP: the gradient predictor ran for layer `layer` on `samples` reorganized samples
  /// (one per output channel / unit): pass 0 = forward (prediction), 1 = backward (its
  /// training on the true gradients), 2 = the predictor's own weight update.
  virtual void on_predictor(std::size_t layer, int pass, int samples) {}
  /// ADA-GP: the phase of the batch about to run: 0 warm-up, 1 Phase BP, 2 Phase GP.
  virtual void on_phase(int phase) {}
};

}  // namespace trainsim
