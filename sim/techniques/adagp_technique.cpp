// What trainsim knows about ADA-GP's three techniques (adagp-max, adagp-efficient,
// adagp-low): one numerics (AdaGp), one phase schedule, three hardware designs (Janfaza et al.,
// MICRO '23, section 4; docs/adagp.md):
//   MAX        the predictor runs on a PE array of its own and keeps its weights in
//              dedicated memory;
//   Efficient  the predictor runs on the main array after each layer, weights in dedicated
//              memory;
//   LOW        no extra hardware: the main array, weights loaded from DRAM for every use.
#include <algorithm>
#include <cstdio>
#include <iterator>

#include "sim/nn/layer_registry.h"
#include "sim/techniques/adagp.h"
#include "sim/techniques/adagp_keys.h"
#include "sim/techniques/adagp_report.h"
#include "sim/techniques/adagp_settings.h"
#include "sim/techniques/predictor_ops.h"
#include "sim/workload/lowering.h"
#include "sim/workload/net_shape.h"

namespace trainsim {

namespace {

// The per-sample gradients the predictor computes for a layer: a conv layer's filter or a
// dense layer's unit weights plus bias (the paper's section 3.6); it serves no other layer.
int predictor_outputs(const NetShape& net, std::size_t layer) {
  const LayerSpec& ls = net.layer_spec(layer);
  const Shape in = net.layer(layer).in;
  switch (layer_family(ls.type)) {
    case LayerFamily::kConv:
      return in.c / ls.groups * ls.kernel * ls.kernel_width() + 1;
    case LayerFamily::kDense:
      return static_cast<int>(in.size()) + 1;
    default:
      return 0;
  }
}

TechniqueHardware hardware(AdagpDesign design, const TechniqueSpec& spec, const NetShape& net,
                           int word_bytes) {
  TechniqueHardware hw;
  TechniqueHardware::OwnModel& p = hw.own_model;
  p.outputs_key = "predictor_outputs";
  for (std::size_t i = 0; i < net.size(); ++i) {
    p.outputs.push_back(predictor_outputs(net, i));
    p.max_outputs = std::max(p.max_outputs, p.outputs.back());
  }
  p.size = spec.get<AdaGpSettings>().predictor_size;
  p.channels = spec.get<AdaGpSettings>().predictor_channels;
  // MAX and Efficient keep the predictor's weights in their own memory; LOW loads them from
  // DRAM for every use and writes its updates back.
  p.resident = design != AdagpDesign::kLow;
  if (p.resident)
    hw.storage_bytes = predictor_params(p.size, p.channels, p.max_outputs) * word_bytes;
  if (design == AdagpDesign::kMax) {
    hw.second_unit = TechniqueHardware::SecondUnit::kOwnArray;
    hw.unit_suffix = "-predictor-array";
    hw.unit_rows = spec.unit_rows;
    hw.unit_cols = spec.unit_cols;
    for (const TechniqueRole& r : kPredictorRoles)
      hw.second_unit_roles.push_back(technique_role(r.name));
    // In Phase GP the predictor's work for one layer overlaps the model's next layer; the
    // layers stay in step (the paper waits for both before moving on).
    hw.lockstep_phase = AdagpSchedule::kPhaseGp;
  }
  return hw;
}

// Warm Up and Phase BP (AdaGp::train_batch): backprop, then the predictor's forward, backward
// and update for every layer it serves, learning from the true gradients, then the updates.
void backprop_and_train_predictor(BatchPasses& p) {
  const NetShape& net = p.shape();
  p.backprop();
  for (std::size_t l = 0; l < net.size(); ++l) {
    if (predictor_outputs(net, l) == 0) continue;
    for (int pass = 0; pass < 3; ++pass) p.technique_op(l, pass, net.layer(l).out.c);
  }
  p.updates();
}

// Phase GP without backprop (AdaGp::predicted_batch): each layer's forward, then at once its
// predicted gradients (`predict`) and its update (`update`). Layers the predictor does not
// serve (batchnorm) keep their weights.
std::function<void(BatchPasses&)> forward_only(bool predict, bool update) {
  return [predict, update](BatchPasses& p) {
    const NetShape& net = p.shape();
    for (std::size_t l = 0; l < net.size(); ++l) {
      p.forward(l);
      if (predictor_outputs(net, l) == 0) continue;
      if (predict) p.technique_op(l, 0, net.layer(l).out.c);
      if (update) p.update(l);
    }
  };
}

// A batch's kind is its phase (warm-up batches are reported as backprop batches, kind 0):
// Warm Up and Phase BP backprop and train the predictor; Phase GP as `phase_gp` says
// (AdaGp::train_batch).
ShapeOnlyPlan shape_only(const TechniqueSpec& spec) {
  static_assert(AdagpSchedule::kWarmUp == kBaseBatchKind, "the warm-up is the base batch");
  ShapeOnlyPlan plan;
  const AdagpSchedule schedule(spec);
  plan.kind = [schedule](int epoch, std::int64_t batch) { return schedule.phase(epoch, batch); };
  plan.recipes.resize(AdagpSchedule::kPhases);
  for (int k = 0; k < AdagpSchedule::kPhases; ++k) {
    BatchRecipe& r = plan.recipes[static_cast<std::size_t>(k)];
    r.name = k == AdagpSchedule::kPhaseGp   ? "phase_gp"
             : k == AdagpSchedule::kPhaseBp ? "phase_bp"
                                            : "backprop";
    r.phase = k;
    r.emit = backprop_and_train_predictor;
  }
  BatchRecipe& gp = plan.recipes[AdagpSchedule::kPhaseGp];
  gp.emit = nullptr;  // plain backprop unless the mode says otherwise
  switch (AdaGp::gp_mode(spec.get<AdaGpSettings>().phase_gp)) {
    case AdaGp::GpMode::kPredict:  // each layer's predicted gradients and update
      gp.backprop = false;
      gp.emit = forward_only(true, true);
      break;
    case AdaGp::GpMode::kSkip:  // forward only, the weights stay
      gp.backprop = false;
      gp.emit = forward_only(false, false);
      break;
    case AdaGp::GpMode::kZero:  // updates without the predictor's work
    case AdaGp::GpMode::kMean:
      gp.backprop = false;
      gp.emit = forward_only(false, true);
      break;
    case AdaGp::GpMode::kPseudo:  // a backprop batch on the model's own classes
    case AdaGp::GpMode::kOracle:  // a backprop batch whose gradients are then perturbed
      break;
  }
  return plan;
}

template <AdagpDesign kDesign>
TechniqueHardware hardware_of(const TechniqueSpec& spec, const NetShape& net, int word_bytes) {
  return hardware(kDesign, spec, net, word_bytes);
}

struct Design {
  const char* name;
  const char* description;
  TechniqueHardware (*hardware)(const TechniqueSpec&, const NetShape&, int);
};

// In AdagpDesign's order.
const Design kDesigns[] = {
    {"adagp-max",
     "ADA-GP (Janfaza et al., MICRO '23) on its MAX hardware: an extra PE array and memory for "
     "the gradient predictor, which runs alongside the model's layers",
     hardware_of<AdagpDesign::kMax>},
    {"adagp-efficient",
     "ADA-GP on its Efficient hardware: dedicated predictor-weight memory, the predictor runs on "
     "the main array after each layer",
     hardware_of<AdagpDesign::kEfficient>},
    {"adagp-low",
     "ADA-GP on its LOW hardware: no extra hardware; the predictor's weights are loaded from "
     "DRAM after each layer and its results stored",
     hardware_of<AdagpDesign::kLow>},
};

}  // namespace

TechniqueInfo adagp_technique(AdagpDesign design) {
  const Design& d = kDesigns[static_cast<int>(design)];
  TechniqueInfo t;
  t.name = d.name;
  t.description = d.description;
  t.keys = {"warmup_epochs", "schedule", "predictor", "phase_gp", "oracle", "diagnostics"};
  t.layer_stats = {"predictor", predictor_stats_json, predictor_stats_csv, archive_predictor_stats};
  t.epoch_size_hint = [](const TechniqueSpec& spec) {
    const AdaGpSettings& a = spec.get<AdaGpSettings>();
    return std::make_pair(std::string("technique.predictor"),
                          "a smaller predictor (size " + std::to_string(a.predictor_size) +
                              ", channels " + std::to_string(a.predictor_channels) + ")");
  };
  if (design == AdagpDesign::kMax) {
    // Its own array has a size but no choice of sharing (that is Efficient / LOW).
    t.keys.insert(t.keys.begin() + 3, "unit");
    t.unit_keys = {"rows", "cols"};
  }
  t.shorthand = "warmup_epochs";
  t.parse_keys = parse_adagp_keys;
  t.emit_keys = emit_adagp_keys;
  t.set_shorthand = set_adagp_shorthand;
  t.choices = {{"phase_gp", AdaGp::gp_mode_names()}};
  for (int ph = 0; ph < AdagpSchedule::kPhases; ++ph)
    t.phases.push_back({AdagpSchedule::kPhaseKeys[ph], AdagpSchedule::kPhaseTitles[ph]});
  t.report_name = "ADA-GP";
  t.roles.assign(std::begin(kPredictorRoles), std::end(kPredictorRoles));
  t.hardware = d.hardware;
  // The predictor's pass `what` (0 prediction, 1 its training on the true gradients, 2 its
  // update) for `layer` on n reorganized samples (one per output channel or unit). It sees a
  // conv layer's output maps (batch-averaged) and a dense layer's units as 1 x batch maps
  // (gradient_predictor.h).
  t.lower_ops = [](const TechniqueHardware& hw, const NetShape& net, std::size_t layer, int what,
                   std::int64_t n, int batch, int word_bits) {
    const Shape out = net.layer(layer).out;
    const bool conv = layer_family(net.layer_spec(layer).type) == LayerFamily::kConv;
    const TechniqueHardware::OwnModel& p = hw.own_model;
    const int outputs = layer < p.outputs.size() ? p.outputs[layer] : 0;
    PredictorOps ops = lower_predictor(
        static_cast<int>(layer), static_cast<int>(n), conv ? out.h : 1, conv ? out.w : batch,
        conv ? batch : 1, p.size, p.channels, outputs, p.max_outputs, word_bits, p.resident);
    return what == 0 ? ops.forward : (what == 1 ? ops.backward : ops.update);
  };
  // The default warm-up (one epoch) goes unsaid.
  t.label = [](const TechniqueSpec& spec) {
    if (spec.get<AdaGpSettings>().warmup_epochs == 1) return spec.kind;
    char buf[64];
    std::snprintf(buf, sizeof buf, "%s@%d", spec.kind.c_str(),
                  spec.get<AdaGpSettings>().warmup_epochs);
    return std::string(buf);
  };
  t.make = [](const TechniqueSpec& spec,
              Network<float>& net) -> std::unique_ptr<TrainingTechnique> {
    return std::make_unique<AdaGp>(spec, net);
  };
  t.shape_only = shape_only;
  return t;
}

}  // namespace trainsim
