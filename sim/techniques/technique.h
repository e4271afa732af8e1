#pragma once
// A training technique decides what one training step does: which passes run, in which
// order, on which unit, and how the gradients are formed. Backprop over a batch (`bp`) is the
// baseline; `bp-sample` runs backprop one sample at a time (the baseline of Purkayastha et al. 2025
// for speculative backprop); `specbp` is speculative backpropagation; `adagp-max`,
// `adagp-efficient` and `adagp-low` are ADA-GP on its three hardware designs.
//
// A technique is three things, kept apart:
//  * its spec (TechniqueSpec, sim/spec/specs.h): the parsed, validated configuration;
//  * its description (TechniqueInfo, below): what the rest of trainsim needs to know about the
//    technique, answered from the spec: its YAML keys, its label, the hardware it adds to a
//    device, where its ops run, how its batches look without numerics, and its factory;
//  * its model (TrainingTechnique, training_technique.h): the state that trains a network.
// Code outside sim/techniques/ learns everything from the description that the registry finds
// by the spec's kind, and never compares a technique's name (tests/unit/test_technique_names.cpp
// fails if it does). A new technique is a new file with its TechniqueInfo plus one line in
// technique_registry.cpp.
#include <nlohmann/json_fwd.hpp>

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sim/spec/specs.h"
#include "sim/workload/op.h"

namespace YAML {
class Emitter;
}

namespace trainsim {

class ConfigMap;
class ConfigNode;
template <typename T>
class Network;
class NetShape;
class TrainingTechnique;
class LayerStats;
class StateArchive;

/// The hardware a technique adds to a device beside the device's own PE array, buffer and
/// DRAM. It is a description, not a model: every device a technique runs on (one accelerator
/// or each device of a system) builds the same units from it (own_array_spec()).
struct TechniqueHardware {
  /// Where the work the technique issues on its second unit (PassObserver::on_unit(1), and
  /// ops of `second_unit_roles`) runs.
  enum class SecondUnit {
    kNone,         ///< the technique issues no such work
    kSharedArray,  ///< the device's own array, after the main unit's work of each step
    kOwnArray,     ///< a PE array of its own beside the main one; both run at the same time
  };
  SecondUnit second_unit = SecondUnit::kNone;
  /// kOwnArray: appended to the device's name to name the array (reports show it), and the
  /// array's size; 0 = as the device's array.
  std::string unit_suffix;
  int unit_rows = 0, unit_cols = 0;
  /// Ops of these roles always run on the second unit, whichever unit the technique issues
  /// them on (ADA-GP-MAX: the predictor's ops run on its predictor array).
  std::vector<OpRole> second_unit_roles;
  /// Where the technique's store (speculative backprop's) lives: DRAM, else the buffer.
  bool store_in_dram = false;
  /// Bytes of dedicated on-chip memory the technique adds (ADA-GP MAX and Efficient: the
  /// predictor's weights); not part of the device's buffer.
  std::int64_t storage_bytes = 0;

  /// A model of the technique's own that the device runs beside the network (ADA-GP's
  /// gradient predictor); none when `outputs` is empty.
  struct OwnModel {
    /// Per network layer: the values per sample it computes for the layer (0: not served),
    /// and the largest of them (its head's size).
    std::vector<int> outputs;
    int max_outputs = 0;
    /// The stats.json key a shape-only run reports max_outputs under (ADA-GP's readers know
    /// "predictor_outputs"); null: not reported.
    const char* outputs_key = nullptr;
    int size = 0, channels = 0;  ///< its input's side and its conv layer's channels
    /// Its weights stay in dedicated memory (`storage_bytes`); else they are loaded from
    /// DRAM for every use and their updates written back.
    bool resident = false;
  } own_model;

  /// The technique phase (TechniqueInfo::phases) in which the second unit's work for one
  /// layer completes before its work for another layer starts, the layers staying in step
  /// (ADA-GP-MAX's predictor in Phase GP); -1: none.
  int lockstep_phase = -1;

  bool own_array() const { return second_unit == SecondUnit::kOwnArray; }
  bool on_second_unit(OpRole role) const;
};

/// The technique's own array on a device whose array is `device`: the device's spec, renamed,
/// at the declared size.
AcceleratorSpec own_array_spec(const TechniqueHardware& hw, const AcceleratorSpec& device);

/// One training batch's passes as a run without numerics issues them to an op stream
/// (sim/train/shape_only_run.cpp): what a technique composes its batches of, in the order its
/// numerics make them.
class BatchPasses {
 public:
  virtual ~BatchPasses() = default;
  virtual const NetShape& shape() const = 0;
  /// The whole network's forward pass, loss gradient and backward pass, in step order.
  virtual void backprop() = 0;
  /// One layer's forward pass.
  virtual void forward(std::size_t layer) = 0;
  /// The technique's own op `what` for `layer` over `n` rows (PassObserver::on_technique_op).
  virtual void technique_op(std::size_t layer, int what, std::int64_t n) = 0;
  /// One layer's update.
  virtual void update(std::size_t layer) = 0;
  /// Every layer's update, in step order.
  virtual void updates() = 0;
};

/// How one kind of batch runs.
struct BatchRecipe {
  /// Its name in reports: epochs.csv's `<name>_batches` column, the kind of phases.csv,
  /// stats.json's `kinds` and `batches`, a pipeline timeline's `batch_kind`.
  std::string name = "backprop";
  /// Reported first with PassObserver::on_phase (the technique's phase); -1: none.
  int phase = -1;
  /// The batch runs a backward pass. Without one a pipeline runs its forward tasks only, each
  /// stage updating its weights there.
  bool backprop = true;
  /// Issues the batch's passes (its end follows); null: backprop, then every update.
  std::function<void(BatchPasses&)> emit;
};

/// How a technique's training batches are timed without numerics.
struct ShapeOnlyPlan {
  /// The kind (an index into `recipes`) of batch `batch` (0-based) of epoch `epoch`
  /// (0-based).
  std::function<int(int epoch, std::int64_t batch)> kind;
  /// The kinds of batch the technique runs, each reported apart; recipes[kBaseBatchKind]
  /// is the one a pipeline balances its stages on and reports per stage.
  std::vector<BatchRecipe> recipes{BatchRecipe{}};
  /// recipes[kind]; std::logic_error for a kind the plan does not have.
  const BatchRecipe& recipe(int kind) const;
};

/// A plan's first batch kind: its ordinary training batch (bp's only one; ADA-GP's warm-up).
inline constexpr int kBaseBatchKind = 0;

/// An op role of the technique's own work (OpRole): the registry registers it when it is
/// built, so reports, sums and device models count it like any other role.
struct TechniqueRole {
  const char* name;  ///< its name in reports, e.g. "pred-fw"
  /// The pass its convolutions compute (kForward, kBackwardData, kBackwardWeight).
  OpRole computes = OpRole::kForward;
  /// On a pipeline: the core pass (kForward, kBackwardData, kBackwardWeight, kUpdate) whose
  /// task carries this work in a batch of kind `batch_kind` (an index into
  /// ShapeOnlyPlan::recipes); null: the work cannot run on a pipeline.
  OpRole (*pipeline_pass)(int batch_kind) = nullptr;
};

/// What trainsim knows about one technique; one per registry line.
struct TechniqueInfo {
  std::string name;
  std::string description;
  std::vector<std::string> keys;       ///< YAML keys besides `kind`
  std::string shorthand;               ///< key set by "name@value" ("" = none)
  std::vector<std::string> unit_keys;  ///< keys of its `unit:` mapping (when `unit` is a key)
  /// Keys whose value is one of a list of names ("unit.array" for the `unit:` mapping's).
  std::vector<std::pair<std::string, std::vector<std::string>>> choices;
  /// The technique speculates (hits and misses; its second unit's work may be discarded).
  bool speculates = false;
  /// The phases the technique's batches go through (PassObserver::on_phase numbers them in
  /// this order), each summed apart in the run's record: ADA-GP's warm-up, Phase BP and Phase
  /// GP. Empty: one phase, not reported.
  struct Phase {
    const char* key;    ///< stats.json's key, e.g. "gp"
    const char* title;  ///< the summary's, e.g. "Phase GP"
  };
  std::vector<Phase> phases;
  /// How reports name the technique's own figures (its phases, extra hardware): "ADA-GP".
  std::string report_name;
  /// The roles of its own ops; techniques that share hardware declare the same ones.
  std::vector<TechniqueRole> roles;
  bool phased() const { return !phases.empty(); }

  /// Its own keys, parsed from the technique's mapping into `spec`: the parser has checked
  /// that the mapping has `kind` and `keys` only. Null: it has no keys.
  void (*parse_keys)(const ConfigMap& m, const TechniqueInfo& info, TechniqueSpec& spec) = nullptr;
  /// The resolved value of every one of its keys, written as `key: value` pairs into an open
  /// mapping (the resolved YAML: `trainsim run` on it reproduces the spec).
  void (*emit_keys)(YAML::Emitter& out, const TechniqueSpec& spec,
                    const TechniqueInfo& info) = nullptr;
  /// "name@text": sets the `shorthand` key from `x`, the text after '@' read as a number
  /// >= 0; fails at `where` when `x` does not fit the key.
  void (*set_shorthand)(double x, const std::string& text, const ConfigNode& where,
                        TechniqueSpec& spec) = nullptr;

  /// Its settings as stats.json's technique_stats lists them (the figures a reader needs to
  /// interpret its counts); null: none.
  void (*report_settings)(const TechniqueSpec& spec, nlohmann::ordered_json& section) = nullptr;

  /// Per-layer statistics of the technique's own model, taken each epoch
  /// (TrainingTechnique::take_layer_stats; ADA-GP: its predictor's quality): `key` names them
  /// in each epoch of stats.json and their file, `<key>.csv`; the technique formats both.
  struct LayerStatsReport {
    const char* key = nullptr;  ///< null: the technique reports none
    nlohmann::ordered_json (*json)(const LayerStats& stats, const Network<float>& net) = nullptr;
    /// The file's text for `epochs` (epoch number, its statistics).
    std::string (*csv)(const std::vector<std::pair<int, const LayerStats*>>& epochs,
                       const Network<float>& net) = nullptr;
    /// Saves one epoch's statistics in a checkpoint (null: none) or restores them.
    void (*archive)(StateArchive& a, std::shared_ptr<const LayerStats>& stats) = nullptr;
  };
  LayerStatsReport layer_stats;
  /// What of its settings sizes an epoch's work beyond the data, for the error of a run too
  /// large for the counters: the key and the advice (ADA-GP: "technique.predictor", "a
  /// smaller predictor (size 8, channels 4)"); null: nothing does.
  std::pair<std::string, std::string> (*epoch_size_hint)(const TechniqueSpec& spec) = nullptr;

  /// The spec's name for compare variants and reports; null: the name alone.
  std::string (*label)(const TechniqueSpec& spec) = nullptr;
  /// The model that trains `net`.
  std::unique_ptr<TrainingTechnique> (*make)(const TechniqueSpec& spec,
                                             Network<float>& net) = nullptr;
  /// The hardware it adds to a device whose network is `net` and words `word_bytes` bytes;
  /// null: none.
  TechniqueHardware (*hardware)(const TechniqueSpec& spec, const NetShape& net,
                                int word_bytes) = nullptr;
  /// Its own work (PassObserver::on_technique_op: operation `what` of size `n` for `layer`)
  /// as ops, in issue order, on a device with `hw` and `word_bits`-bit words, for batches of
  /// `batch` samples; null: the technique does no work of its own.
  std::vector<Op> (*lower_ops)(const TechniqueHardware& hw, const NetShape& net, std::size_t layer,
                               int what, std::int64_t n, int batch, int word_bits) = nullptr;
  /// Its batches without numerics; null: what it does depends on the data, so it cannot run
  /// with `numerics: none`.
  ShapeOnlyPlan (*shape_only)(const TechniqueSpec& spec) = nullptr;

  /// The names `key` takes (null: any value of its type).
  const std::vector<std::string>* choices_of(const std::string& key) const;
};

/// Every registered technique, in a fixed order (the first is the default).
const std::vector<TechniqueInfo>& techniques();
const TechniqueInfo* find_technique(const std::string& name);
/// The description of `spec`'s kind; std::logic_error for an unregistered kind (the parser
/// only accepts registered ones).
const TechniqueInfo& technique_info(const TechniqueSpec& spec);
/// The id of the role a technique declared as `name` (TechniqueInfo::roles); std::logic_error
/// if no technique declares it.
OpRole technique_role(const std::string& name);
/// The declaration of a technique's role; null for a core role.
const TechniqueRole* technique_role_info(OpRole role);
/// The hardware `spec` adds to a device running `net`.
TechniqueHardware technique_hardware(const TechniqueSpec& spec, const NetShape& net,
                                     int word_bytes);

}  // namespace trainsim
