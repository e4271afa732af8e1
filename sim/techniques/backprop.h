#pragma once
#include "sim/techniques/technique.h"
#include "sim/techniques/training_technique.h"

namespace trainsim {

class Backprop final : public TrainingTechnique {
 public:
  BatchResult train_batch(BatchContext& ctx) override;
};

class SampleBackprop final : public TrainingTechnique {
 public:
  BatchResult train_batch(BatchContext& ctx) override;

 private:
  ForwardPass<float> one_;  // the current sample's forward pass
};

/// `bp` and `bp-sample` (technique_registry.cpp).
TechniqueInfo backprop_technique();
TechniqueInfo sample_backprop_technique();

/// Copies sample `i` of the batch input into a batch-1 pass.
void copy_sample(const ForwardPass<float>& batch, int i, ForwardPass<float>& one);

}  // namespace trainsim
