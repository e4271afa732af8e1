#pragma once
// Speculative backpropagation, exactly as the public code of Purkayastha et al.
// (arXiv:2511.11640, 2025) does it: after every training sample its whole forward pass is stored in
// the slot of its label. For the next sample, while its forward pass runs on the main array,
// a second unit backpropagates the stored pass of the previous sample with the same label
// through the current weights. When the forward pass ends,
//   d = (1/classes) * sum_k |stored_softmax[k] - current_softmax[k]|;
// d <= threshold is a hit (the speculative gradient is used), otherwise a miss (it is
// discarded and a normal backward pass of the current sample runs). The first sample of
// each label runs plain backprop. Gradients are summed over the batch and applied once
// (with the experiment's optimizer: for the seed MLP, SGD with clipping to +-5).
//
// Numerics: a discarded speculative pass does not change the weights, so it is not
// computed; its ops are still issued (Network::backward with compute = false), so the
// hardware's wasted time and energy are counted.
#include <vector>

#include "sim/techniques/technique.h"
#include "sim/techniques/training_technique.h"

namespace trainsim {

/// `specbp` (technique_registry.cpp): its second unit (an array of its own, or the main one)
/// and the per-label store in the buffer or in DRAM.
TechniqueInfo specbp_technique();

/// Its own operations (PassObserver::on_technique_op): compare the current softmax with the
/// stored one (n values); store a forward pass in its label's slot (n words).
inline constexpr int kSpecbpCompare = 0, kSpecbpStore = 1;

class SpecBackprop final : public TrainingTechnique {
 public:
  SpecBackprop(const TechniqueSpec& spec, const Network<float>& net);
  BatchResult train_batch(BatchContext& ctx) override;
  /// The per-label store: one forward pass (input and every layer's output) per label.
  std::int64_t storage_bytes(int word_bytes) const override;
  /// The store, when `store: buffer`.
  std::int64_t buffer_bytes(int word_bytes, std::string* what) const override;
  void checkpoint(StateArchive& a, const Optimizer<float>& model_optimizer) override;

  /// Mean absolute difference of two probability vectors. Two distributions differ by at most
  /// 2 in total, so this never exceeds 2 / classes (0.2 for 10 classes).
  static double distance(const float* a, const float* b, int classes);

 private:
  struct Slot {
    bool valid = false;
    ForwardPass<float> pass;
  };
  friend void archive(StateArchive& a, Slot& s);
  double threshold_;
  bool store_in_buffer_;
  int classes_;
  std::vector<Slot> store_;
  ForwardPass<float> current_;
  std::int64_t pass_words_ = 0;  // one sample's pass: its input and every layer's output
};

}  // namespace trainsim
