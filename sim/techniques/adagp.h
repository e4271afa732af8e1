#pragma once
// ADA-GP (Janfaza et al., MICRO '23): a small predictor learns every layer's
// weight gradients from its output activations, and some batches train on predicted
// gradients with no backward pass at all.
//  * Warm Up (the first warmup_epochs epochs) and Phase BP: forward, backprop, then the
//    predictor is trained on every layer's true gradients; the model is updated with the
//    true gradients.
//  * Phase GP: the forward pass runs layer by layer; after each layer with parameters the
//    predictor predicts its gradients from its output activations and the layer is updated
//    at once ("weights updated as soon as its output activations exist"). No backward pass,
//    no predictor training.
// One class serves adagp-max / adagp-efficient / adagp-low: their numerics are identical;
// only the hardware timing differs (the accelerator session's job).
//
// Optimizer state. The experiment's optimizer keeps its state (momentum, Adam moments and
// step count) per position in the param vector it is stepped with, so stepping it with one
// layer's params in GP and all params in BP would mix states. AdaGp therefore keeps one
// optimizer per layer with parameters, made from the experiment's OptimizerSpec, and steps
// those in every phase (ctx.optimizer is not used). In Warm Up and Phase BP every layer's
// optimizer steps once per batch, exactly as one optimizer over all params would: with
// only warm-up batches ADA-GP trains the model bit for bit like bp.
#include <memory>
#include <vector>

#include "sim/techniques/adagp_schedule.h"
#include "sim/techniques/gradient_diagnostics.h"
#include "sim/techniques/gradient_oracle.h"
#include "sim/techniques/gradient_predictor.h"
#include "sim/techniques/predictor_stats.h"
#include "sim/techniques/technique.h"
#include "sim/techniques/training_technique.h"

namespace trainsim {

/// ADA-GP's three hardware designs (the paper's section 4), one technique each:
/// adagp-max, adagp-efficient, adagp-low (adagp_technique.cpp).
enum class AdagpDesign { kMax, kEfficient, kLow };
TechniqueInfo adagp_technique(AdagpDesign design);

class AdaGp final : public TrainingTechnique {
 public:
  // What Phase GP applies: the predictions, or one of the ablations (docs/adagp.md):
  //  skip   nothing: the batch only runs forward and the weights stay as they are;
  //  zero   zero gradients: only the optimizers' momentum moves the weights;
  //  mean   each weight's running mean of its true gradients over the past Warm Up and
  //         Phase BP batches: a per-weight memory of the consistent part of the gradient,
  //         the reference for a predictor that learns from past gradients (a shared
  //         predictor cannot even store it);
  //  pseudo backprop with the model's own predicted classes as labels: the reference for a
  //         gradient taken from the Phase GP batch itself without its labels (costs a
  //         backward pass, so it is no speed-up; timed as a backprop batch).
  //  oracle the batch's true gradient degraded to a chosen cosine and magnitude
  //         (GradientOracle): the reference for a predictor of that quality (costs a
  //         backward pass; timed as a backprop batch).
  enum class GpMode { kPredict, kSkip, kZero, kMean, kPseudo, kOracle };
  /// The `phase_gp` names, in GpMode's order.
  static const std::vector<std::string>& gp_mode_names();
  /// UserError for a name that is not one of them.
  static GpMode gp_mode(const std::string& name);
  AdaGp(const TechniqueSpec& spec, Network<float>& net);
  BatchResult train_batch(BatchContext& ctx) override;
  void on_epoch_begin(int epoch) override;
  void set_lr(double lr) override;
  void checkpoint(StateArchive& a, const Optimizer<float>& model_optimizer) override;

  /// Mean predictor error per layer with parameters (in network order, see param_layers())
  /// over the Warm Up and Phase BP batches since the last call; resets them.
  std::shared_ptr<const LayerStats> take_layer_stats() override;
  const std::vector<std::size_t>& param_layers() const { return param_layers_; }
  const GradientPredictor& predictor() const { return predictor_; }
  const AdagpSchedule& schedule() const { return schedule_; }

 private:
  BatchResult backprop_batch(BatchContext& ctx);      // Warm Up and Phase BP
  BatchResult predicted_batch(BatchContext& ctx);     // Phase GP
  BatchResult pseudo_label_batch(BatchContext& ctx);  // Phase GP, ablation "pseudo"
  BatchResult oracle_batch(BatchContext& ctx);        // Phase GP, reference "oracle"
  // Diagnostics: the batch's true gradient by an unobserved forward and backward pass that
  // changes nothing the batch then does.
  void measure_true_gradients(BatchContext& ctx);
  // Steps layer k's optimizer with its current grads (in Phase GP recording them for the
  // diagnostics).
  void step_layer(BatchContext& ctx, std::size_t k, bool phase_gp);
  void remember_gradients();  // ablation "mean": the running mean of the true gradients
  // Every layer's optimizer step, then the batch's end.
  void update_all_and_finish(BatchContext& ctx, bool phase_gp);
  void make_optimizers(const Optimizer<float>& like);

  AdagpSchedule schedule_;
  GradientPredictor predictor_;
  GpMode gp_mode_;
  static constexpr float kMeanRate = 0.1F;             // "mean": weight of the newest batch
  std::vector<std::vector<Tensor<float>>> mean_grad_;  // per param layer, per param
  std::vector<std::uint8_t> pseudo_labels_;
  GradientOracle oracle_;
  std::unique_ptr<GradientDiagnostics> diagnostics_;  // with `diagnostics: true`
  std::vector<std::size_t> param_layers_;
  std::vector<std::vector<Param<float>*>> layer_params_;  // per param layer
  std::vector<bool> predicted_;  // per param layer: served by the predictor (conv, dense)
  std::vector<std::unique_ptr<Optimizer<float>>> optimizers_;  // per param layer
  std::vector<PredictorError> error_sum_;                      // per param layer
  std::int64_t error_batches_ = 0;
  int epoch_ = 0;
  std::int64_t batch_in_epoch_ = 0;
};

}  // namespace trainsim
