#pragma once
// Told about every computation the network and the training loop perform, as they perform
// it. This is how the op stream is produced: the accelerator model sees exactly the passes
// the numerics executed (a skipped backward-data of the first layer is skipped in both),
// because it is driven by the same calls.
#include <cstddef>

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
};

}  // namespace trainsim
