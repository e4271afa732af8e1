#include "sim/techniques/adagp.h"
#include "sim/techniques/adagp_settings.h"

#include <algorithm>

#include "sim/core/error.h"
#include "sim/core/state_archive.h"
#include "sim/nn/softmax.h"
#include "sim/nn/tensor_state.h"
#include "sim/optim/optimizer_registry.h"

namespace trainsim {

namespace {
// The predictor's initial weights: fixed, so a run depends on training.seed only through
// the model (the predictor is hardware, the same in every experiment).
constexpr std::uint64_t kPredictorSeed = 0xADA6'0003ULL;
// The oracle's noise directions: fixed for the same reason (a reference, not the model's).
constexpr std::uint64_t kOracleSeed = 0x0EAC'1E00ULL;
}  // namespace

const std::vector<std::string>& AdaGp::gp_mode_names() {
  static const std::vector<std::string> names = {"predict", "skip",   "zero",
                                                 "mean",    "pseudo", "oracle"};
  return names;
}

AdaGp::GpMode AdaGp::gp_mode(const std::string& name) {
  const auto& names = gp_mode_names();
  const auto it = std::find(names.begin(), names.end(), name);
  if (it == names.end()) {
    std::string choices;
    for (const auto& n : names) choices += (choices.empty() ? "" : ", ") + n;
    throw UserError("technique: unknown phase_gp '" + name + "' (choices: " + choices + ")");
  }
  return static_cast<GpMode>(it - names.begin());
}

AdaGp::AdaGp(const TechniqueSpec& spec, Network<float>& net)
    : schedule_(spec),
      predictor_(spec, net, kPredictorSeed),
      gp_mode_(gp_mode(spec.get<AdaGpSettings>().phase_gp)),
      oracle_(spec.get<AdaGpSettings>().oracle_cosine, spec.get<AdaGpSettings>().oracle_magnitude,
              spec.get<AdaGpSettings>().oracle_persistent, kOracleSeed) {
  for (std::size_t i = 0; i < net.size(); ++i) {
    if (!net.has_params(i)) continue;
    param_layers_.push_back(i);
    layer_params_.push_back(net.layer(i).params());
    predicted_.push_back(predictor_.serves(i));
  }
  error_sum_.resize(param_layers_.size());
  if (spec.get<AdaGpSettings>().diagnostics)
    diagnostics_ = std::make_unique<GradientDiagnostics>(layer_params_);
}

void AdaGp::on_epoch_begin(int epoch) {
  epoch_ = epoch;
  batch_in_epoch_ = 0;
}

void AdaGp::set_lr(double lr) {
  for (auto& o : optimizers_) o->set_lr(lr);
}

void AdaGp::make_optimizers(const Optimizer<float>& like) {
  const OptimizerInfo* info = find_optimizer(like.spec().kind);
  if (info == nullptr) throw UserError("unknown optimizer '" + like.spec().kind + "'");
  for (std::size_t k = 0; k < param_layers_.size(); ++k)
    optimizers_.push_back(info->make(like.spec()));
}

static_assert(AdagpSchedule::kPhases <= kMaxTechniquePhases, "ADA-GP's phases are counted apart");

BatchResult AdaGp::train_batch(BatchContext& ctx) {
  if (optimizers_.empty()) make_optimizers(ctx.optimizer);
  const int phase = schedule_.phase(epoch_, batch_in_epoch_++);
  if (PassObserver* obs = ctx.net.observer()) obs->on_phase(phase);
  counts_.steps += ctx.count;
  ++counts_.phase_batches[static_cast<std::size_t>(phase)];
  return phase == AdagpSchedule::kPhaseGp ? predicted_batch(ctx) : backprop_batch(ctx);
}

BatchResult AdaGp::backprop_batch(BatchContext& ctx) {
  PassObserver* obs = ctx.net.observer();
  const BatchResult r = forward_backward(ctx);
  // The predictor learns from the true gradients before the optimizer reduces/clips them.
  for (std::size_t k = 0; k < param_layers_.size(); ++k) {
    if (!predicted_[k]) continue;
    const std::size_t l = param_layers_[k];
    const int samples = predictor_.samples(l);
    if (obs) obs->on_technique_op(l, 0, samples);
    const PredictorError e = predictor_.train(l, ctx.pass.acts[l + 1]);
    if (obs) {
      obs->on_technique_op(l, 1, samples);
      obs->on_technique_op(l, 2, samples);
    }
    error_sum_[k].mse += e.mse;
    error_sum_[k].mape += e.mape;
    error_sum_[k].cosine += e.cosine;
  }
  ++error_batches_;
  if (gp_mode_ == GpMode::kMean) remember_gradients();
  if (diagnostics_) diagnostics_->record_truth();
  // The model update with the true gradients.
  update_all_and_finish(ctx, false);
  return r;
}

void AdaGp::update_all_and_finish(BatchContext& ctx, bool phase_gp) {
  // finish_batch, with the per-layer optimizers; a Phase GP batch's updates are what the
  // diagnostics measure.
  for (std::size_t k = 0; k < param_layers_.size(); ++k) step_layer(ctx, k, phase_gp);
  if (PassObserver* obs = ctx.net.observer()) obs->on_batch_end(Phase::kTrain, ctx.count);
}

void AdaGp::remember_gradients() {
  if (mean_grad_.empty()) {  // the first batch starts the mean
    for (const auto& params : layer_params_) {
      mean_grad_.emplace_back();
      for (const Param<float>* p : params) mean_grad_.back().push_back(p->grad);
    }
    return;
  }
  for (std::size_t k = 0; k < layer_params_.size(); ++k)
    for (std::size_t j = 0; j < layer_params_[k].size(); ++j) {
      Tensor<float>& m = mean_grad_[k][j];
      const Tensor<float>& g = layer_params_[k][j]->grad;
      for (std::size_t q = 0; q < m.size(); ++q) m[q] += kMeanRate * (g[q] - m[q]);
    }
}

void AdaGp::measure_true_gradients(BatchContext& ctx) {
  // Unobserved, so untimed. Its forward pass is recomputed by the batch, and the gradients
  // it leaves are overwritten before any use (predict, zero, mean, pseudo) or never read by
  // the training (skip; a checkpoint taken then does save them, but a run cannot resume
  // with diagnostics switched, its configuration differs): the training goes on bit for
  // bit as without it.
  PassObserver* obs = ctx.net.observer();
  ctx.net.set_observer(nullptr);
  // The network's own state (batchnorm's running statistics, dropout's random streams)
  // is put back afterwards, so this extra forward pass leaves no trace either.
  StateWriter saved;
  ctx.net.archive_state(saved);
  ctx.net.forward(ctx.pass);
  ctx.net.zero_grad();
  ctx.net.backward(ctx.pass, ctx.labels, ctx.scratch);
  StateReader restore(saved.data(), "the network's state before the measurement");
  ctx.net.archive_state(restore);
  ctx.net.set_observer(obs);
  diagnostics_->record_truth();
}

void AdaGp::step_layer(BatchContext& ctx, std::size_t k, bool phase_gp) {
  if (phase_gp && diagnostics_) diagnostics_->record_applied(k);
  optimizers_[k]->step(layer_params_[k], ctx.count);
  if (PassObserver* obs = ctx.net.observer()) obs->on_update(param_layers_[k], ctx.count);
}

BatchResult AdaGp::oracle_batch(BatchContext& ctx) {
  const BatchResult r = forward_backward(ctx);
  if (diagnostics_) diagnostics_->record_truth();
  for (std::size_t k = 0; k < param_layers_.size(); ++k) oracle_.perturb(k, layer_params_[k]);
  update_all_and_finish(ctx, true);
  return r;
}

BatchResult AdaGp::pseudo_label_batch(BatchContext& ctx) {
  BatchResult r;
  ctx.net.forward(ctx.pass);
  const Tensor<float>& probs = ctx.pass.probs();
  r.loss_sum = cross_entropy_loss(probs, ctx.labels);
  r.correct = count_correct(probs, ctx.labels);
  // The model's own classes stand in for the labels Phase GP does not use.
  pseudo_labels_.resize(static_cast<std::size_t>(ctx.count));
  const std::size_t classes = probs.sample_size();
  for (int b = 0; b < ctx.count; ++b) {
    const float* p = probs.sample(b);
    pseudo_labels_[static_cast<std::size_t>(b)] =
        static_cast<std::uint8_t>(std::max_element(p, p + classes) - p);
  }
  ctx.net.zero_grad();
  ctx.net.backward(ctx.pass, pseudo_labels_.data(), ctx.scratch);
  update_all_and_finish(ctx, true);
  return r;
}

BatchResult AdaGp::predicted_batch(BatchContext& ctx) {
  // The oracle's own backward pass yields the truth; every other mode measures it apart.
  if (gp_mode_ == GpMode::kOracle) return oracle_batch(ctx);
  if (diagnostics_) measure_true_gradients(ctx);
  if (gp_mode_ == GpMode::kPseudo) return pseudo_label_batch(ctx);
  BatchResult r;
  PassObserver* obs = ctx.net.observer();
  ForwardPass<float>& pass = ctx.pass;
  ctx.net.prepare(pass, /*training=*/true);
  std::size_t k = 0;  // next param layer
  for (std::size_t i = 0; i < ctx.net.size(); ++i) {
    ctx.net.forward_layer(pass, i);
    if (!ctx.net.has_params(i)) continue;
    // Layers the predictor does not serve (batchnorm) keep their weights, as in skip.
    if (gp_mode_ == GpMode::kSkip || !predicted_[k]) {
      if (diagnostics_) diagnostics_->record_nothing(k);
      ++k;
      continue;
    }
    // This layer's output exists: predict its gradients and update it right away.
    if (gp_mode_ == GpMode::kMean && !mean_grad_.empty()) {
      for (std::size_t j = 0; j < layer_params_[k].size(); ++j)
        layer_params_[k][j]->grad = mean_grad_[k][j];
    } else if (gp_mode_ != GpMode::kPredict) {  // zero, or mean before any true gradient
      for (Param<float>* p : layer_params_[k]) p->grad.set_zero();
    } else {
      if (obs) obs->on_technique_op(i, 0, predictor_.samples(i));
      predictor_.predict(i, pass.acts[i + 1]);
    }
    step_layer(ctx, k, true);
    ++k;
  }
  r.loss_sum = cross_entropy_loss(pass.probs(), ctx.labels);
  r.correct = count_correct(pass.probs(), ctx.labels);
  if (obs) obs->on_batch_end(Phase::kTrain, ctx.count);
  return r;
}

void AdaGp::checkpoint(StateArchive& a, const Optimizer<float>& model_optimizer) {
  TrainingTechnique::checkpoint(a, model_optimizer);
  a.section("adagp");
  predictor_.checkpoint(a);
  // The per-layer optimizers are made on the first batch (from the run's optimizer).
  std::uint64_t made = optimizers_.size();
  a.value(made);
  if (a.loading() && made > 0 && optimizers_.empty()) make_optimizers(model_optimizer);
  if (made != optimizers_.size())
    throw UserError("checkpoint out of step: " + std::to_string(made) + " ADA-GP optimizers for " +
                    std::to_string(optimizers_.size()) + " layers");
  for (auto& o : optimizers_) o->checkpoint(a);
  a.vector(mean_grad_);
  oracle_.checkpoint(a);
  if (diagnostics_) diagnostics_->checkpoint(a);
  a.vector(error_sum_);
  a.value(error_batches_);
  a.value(epoch_);
  a.value(batch_in_epoch_);
}

std::shared_ptr<const LayerStats> AdaGp::take_layer_stats() {
  auto taken = std::make_shared<PredictorStats>();
  std::vector<PredictorLayerStats>& stats = taken->layers;
  stats.resize(param_layers_.size());
  const double n = error_batches_ > 0 ? static_cast<double>(error_batches_) : 1.0;
  for (std::size_t k = 0; k < stats.size(); ++k) {
    PredictorLayerStats& s = stats[k];
    s.layer = param_layers_[k];
    s.batches = error_batches_;
    s.mse = error_sum_[k].mse / n;
    s.mape = error_sum_[k].mape / n;
    s.cosine = error_sum_[k].cosine / n;
    s.gain = predicted_[k] ? predictor_.gain(param_layers_[k]) : 1.0;
  }
  if (diagnostics_) diagnostics_->take(stats);
  // Rows for the layers the predictor serves only.
  std::size_t kept = 0;
  for (std::size_t k = 0; k < stats.size(); ++k)
    if (predicted_[k]) stats[kept++] = stats[k];
  stats.resize(kept);
  error_sum_.assign(error_sum_.size(), PredictorError{});
  error_batches_ = 0;
  if (stats.empty()) return nullptr;
  return taken;
}

}  // namespace trainsim
