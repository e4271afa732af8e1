// bp: the batch runs forward, loss, backward and update as batch-wide ops.
// bp-sample: every sample runs forward and backward on its own (batch-1 ops), gradients are
// summed over the batch and applied once: the baseline speculative backprop is measured
// against, as the C program of Purkayastha et al. 2025 trains.
#include "sim/techniques/backprop.h"

#include "sim/nn/softmax.h"
#include "sim/spec/specs.h"

namespace trainsim {

double TechniqueCounts::hit_rate() const {
  return hits + misses > 0 ? static_cast<double>(hits) / static_cast<double>(hits + misses) : -1;
}

void finish_batch(BatchContext& ctx) {
  ctx.optimizer.step(ctx.params, ctx.count);
  if (PassObserver* obs = ctx.net.observer()) {
    for (std::size_t i = 0; i < ctx.net.size(); ++i)
      if (ctx.net.has_params(i)) obs->on_update(i, ctx.count);
    obs->on_batch_end(Phase::kTrain, ctx.count);
  }
}

BatchResult forward_backward(BatchContext& ctx) {
  BatchResult r;
  ctx.net.forward(ctx.pass);
  r.loss_sum = cross_entropy_loss(ctx.pass.probs(), ctx.labels);
  r.correct = count_correct(ctx.pass.probs(), ctx.labels);
  ctx.net.zero_grad();
  ctx.net.backward(ctx.pass, ctx.labels, ctx.scratch);
  return r;
}

BatchResult Backprop::train_batch(BatchContext& ctx) {
  const BatchResult r = forward_backward(ctx);
  counts_.steps += ctx.count;
  finish_batch(ctx);
  return r;
}

void copy_sample(const ForwardPass<float>& batch, int i, ForwardPass<float>& one) {
  const Tensor<float>& x = batch.acts[0];
  if (one.acts.empty()) one.acts.resize(1);
  one.acts[0].resize(1, x.shape());
  std::copy(x.sample(i), x.sample(i) + x.sample_size(), one.acts[0].data());
}

BatchResult SampleBackprop::train_batch(BatchContext& ctx) {
  BatchResult r;
  ctx.net.zero_grad();
  PassObserver* obs = ctx.net.observer();
  for (int i = 0; i < ctx.count; ++i) {
    if (obs) obs->on_step(true);
    copy_sample(ctx.pass, i, one_);
    ctx.net.forward(one_);
    r.loss_sum += cross_entropy_loss(one_.probs(), ctx.labels + i);
    r.correct += count_correct(one_.probs(), ctx.labels + i);
    ctx.net.backward(one_, ctx.labels + i, ctx.scratch);
    ++counts_.steps;
    if (obs) obs->on_step(false);
  }
  finish_batch(ctx);
  return r;
}

TechniqueInfo backprop_technique() {
  TechniqueInfo t;
  t.name = "bp";
  t.description =
      "backpropagation over the batch: forward, loss, backward-data and backward-weight of "
      "every layer, then the update";
  t.make = [](const TechniqueSpec&, Network<float>&) -> std::unique_ptr<TrainingTechnique> {
    return std::make_unique<Backprop>();
  };
  // No hardware of its own, and every batch is the same backprop batch: its ops depend on
  // the shapes alone.
  t.shape_only = [](const TechniqueSpec&) {
    ShapeOnlyPlan plan;
    plan.kind = [](int, std::int64_t) { return 0; };
    return plan;
  };
  return t;
}

TechniqueInfo sample_backprop_technique() {
  TechniqueInfo t;
  t.name = "bp-sample";
  t.description =
      "backpropagation one sample at a time (batch-1 ops), gradients summed over the batch: "
      "the baseline of speculative backprop";
  t.make = [](const TechniqueSpec&, Network<float>&) -> std::unique_ptr<TrainingTechnique> {
    return std::make_unique<SampleBackprop>();
  };
  // No shape-only plan (shape-only runs refuse it): its batches would need a recipe of
  // batch-1 steps, and it is the baseline of speculative backprop, which needs the data.
  return t;
}

}  // namespace trainsim
