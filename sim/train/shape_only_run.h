#pragma once
// Shape-only training runs (numerics: none): the timing and energy of a whole training
// schedule without any tensors. A batch's op stream depends only on the network's shapes,
// the batch size and what the technique does in that batch (its phase), so each distinct
// (phase, batch size) is simulated once, batch by batch through the same AcceleratorSession
// and SystemC system as a real run, and the schedule is then counted: how many batches of
// each kind every epoch holds. This is how the paper-scale networks of the shape-only zoo
// (VGG, ResNet, DenseNet, ... on CIFAR-10 and ImageNet) are timed for 90 epochs in seconds.
//
// The event order per batch mirrors the numerics exactly (Network::forward / backward,
// Backprop, AdaGp); tests/unit/test_shape_only.cpp checks that a shape-only run of LeNet-5
// costs what the real training run costs, phase by phase.
#include <map>
#include <string>
#include <vector>

#include "sim/data/dataset.h"
#include "sim/techniques/technique.h"
#include "sim/train/accel_session.h"

namespace trainsim {

/// OpTotals arithmetic for counting: `n` batches of `t`.
OpTotals times(const OpTotals& t, std::int64_t n);
void accumulate(OpTotals& into, const OpTotals& t);

struct ShapeOnlyEpoch {
  OpTotals train, eval;
  std::vector<std::int64_t> batches;  ///< training batches of each kind (the plan's recipes)
};

struct ShapeOnlyResult {
  /// The technique's kinds of batch (BatchRecipe::name), which `kinds`, each epoch's
  /// `batches` and the maps' first keys index.
  std::vector<std::string> kind_names;
  std::vector<ShapeOnlyEpoch> epochs;
  OpTotals train, eval;
  std::vector<OpTotals> kinds;  ///< whole-run training totals per kind
  /// One simulated batch of each (kind, batch size) that occurs: the per-batch figures.
  std::map<std::pair<int, int>, OpTotals> per_batch;
  std::map<std::pair<int, int>, std::int64_t> batch_counts;  ///< how many in the whole run
  /// All the batches of each (kind, batch size) in the whole run: per_batch x batch_counts.
  std::map<std::pair<int, int>, OpTotals> all_batches;
  std::map<int, OpTotals> eval_per_batch;  ///< by batch size
};

/// "bp, adagp-max, ...": the techniques whose batches are known ahead of the data (those with
/// a ShapeOnlyPlan), for messages.
std::string shape_only_techniques();

/// UserError unless spec's technique can be timed without numerics (its description has a
/// ShapeOnlyPlan: bp, adagp-*).
void check_shape_only_technique(const ExperimentSpec& spec);

/// Times `spec`'s training schedule on `session` (constructed without a Network) for a
/// dataset of `data`'s split sizes, batch by batch as the technique's ShapeOnlyPlan says.
/// UserError for techniques without one (bp-sample, specbp: specbp's hit rates need the
/// numerics).
ShapeOnlyResult run_shape_only(const ExperimentSpec& spec, const DatasetShape& data,
                               AcceleratorSession& session);
/// Sends one training batch of `kind` (an index into the technique's ShapeOnlyPlan::recipes)
/// and `batch` samples through `stream` (an accelerator session, or any other op stream), as
/// run_shape_only() does for each kind (the pipeline model costs its stages with it,
/// sim/pipeline/stage_costs.h).
void emit_training_batch(const ExperimentSpec& spec, OpStream& stream, int kind, int batch);

}  // namespace trainsim
