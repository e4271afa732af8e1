#include "sim/techniques/specbp.h"
#include "sim/techniques/specbp_settings.h"

#include <yaml-cpp/yaml.h>

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>

#include "sim/nn/softmax.h"
#include "sim/nn/tensor_state.h"
#include "sim/techniques/backprop.h"
#include "sim/techniques/technique_keys.h"
#include "sim/yaml/yaml_emit.h"

namespace trainsim {

SpecBackprop::SpecBackprop(const TechniqueSpec& spec, const Network<float>& net)
    : threshold_(spec.get<SpecBpSettings>().threshold),
      store_in_buffer_(spec.get<SpecBpSettings>().store == "buffer"),
      classes_(net.spec().classes),
      store_(static_cast<std::size_t>(classes_)),
      pass_words_(net.input_shape().size()) {
  for (std::size_t i = 0; i < net.size(); ++i) pass_words_ += net.layer(i).out_shape().size();
}

double SpecBackprop::distance(const float* a, const float* b, int classes) {
  double sum = 0;
  for (int k = 0; k < classes; ++k) sum += std::fabs(static_cast<double>(a[k]) - b[k]);
  return sum / classes;
}

std::int64_t SpecBackprop::storage_bytes(int word_bytes) const {
  return static_cast<std::int64_t>(classes_) * pass_words_ * word_bytes;
}

void archive(StateArchive& a, SpecBackprop::Slot& s) {
  a.value(s.valid);
  a.vector(s.pass.acts);
  // What its layers saved for the backward pass (batchnorm's statistics, dropout's masks).
  a.vector(s.pass.saved);
}

void SpecBackprop::checkpoint(StateArchive& a, const Optimizer<float>& model_optimizer) {
  TrainingTechnique::checkpoint(a, model_optimizer);
  a.section("specbp");
  a.vector(store_);  // the stored passes the next speculations read
  a.value(pass_words_);
}

std::int64_t SpecBackprop::buffer_bytes(int word_bytes, std::string* what) const {
  if (!store_in_buffer_) return 0;
  if (what)
    *what = "the per-label store (" + std::to_string(classes_) + " labels x " +
            std::to_string(pass_words_) + " words x " + std::to_string(word_bytes) + " bytes)";
  return storage_bytes(word_bytes);
}

BatchResult SpecBackprop::train_batch(BatchContext& ctx) {
  BatchResult r;
  ctx.net.zero_grad();
  PassObserver* obs = ctx.net.observer();
  const std::size_t last = ctx.net.size() - 1;
  for (int i = 0; i < ctx.count; ++i) {
    const std::uint8_t* label = ctx.labels + i;
    if (obs) obs->on_step(true);
    copy_sample(ctx.pass, i, current_);
    ctx.net.forward(current_);  // main array
    r.loss_sum += cross_entropy_loss(current_.probs(), label);
    r.correct += count_correct(current_.probs(), label);
    Slot& slot = store_[*label];
    if (!slot.valid) {
      ++counts_.cold;
      ctx.net.backward(current_, label, ctx.scratch);
    } else {
      const double d = distance(slot.pass.probs().data(), current_.probs().data(), classes_);
      counts_.max_distance = std::max(counts_.max_distance, d);
      const bool hit = d <= threshold_;
      // The speculative pass ran on the second unit alongside the forward pass, whatever
      // the comparison decides afterwards.
      if (obs) obs->on_unit(1, !hit);
      ctx.net.backward(slot.pass, label, ctx.scratch, /*compute=*/hit);
      if (obs) {
        obs->on_unit(0, false);
        obs->on_join();
        obs->on_technique_op(last, kSpecbpCompare, classes_);
      }
      if (hit) {
        ++counts_.hits;
      } else {
        ++counts_.misses;
        ctx.net.backward(current_, label, ctx.scratch);
      }
    }
    // Store this sample's forward pass in its label's slot (copying keeps the buffers of
    // the slot, so no allocation after the first pass per label).
    const std::int64_t words = slot.pass.copy_from(current_);
    slot.valid = true;
    if (obs) {
      obs->on_technique_op(0, kSpecbpStore, words);
      obs->on_step(false);
    }
    ++counts_.steps;
  }
  finish_batch(ctx);
  return r;
}

TechniqueInfo specbp_technique() {
  TechniqueInfo t;
  t.name = "specbp";
  t.description =
      "speculative backpropagation (Purkayastha et al. 2025): a second unit backpropagates the "
      "stored forward pass of the previous same-label sample while the current forward pass "
      "runs; kept if the outputs differ by <= threshold, else a normal backward pass runs";
  t.keys = {"threshold", "unit", "store"};
  t.shorthand = "threshold";
  t.unit_keys = {"array", "rows", "cols"};
  t.choices = {{"unit.array", {"own", "shared"}}, {"store", {"buffer", "dram"}}};
  t.speculates = true;
  t.report_name = "speculative backprop";
  // Its compare and store work is per sample, beside the forward pass: a pipeline's tasks have
  // no place for it.
  t.roles = {{"compare", OpRole::kForward, nullptr}, {"store", OpRole::kForward, nullptr}};
  t.parse_keys = [](const ConfigMap& m, const TechniqueInfo& info, TechniqueSpec& spec) {
    if (auto v = m.get("threshold"))
      spec.own<SpecBpSettings>().threshold = v->as_double_non_negative();
    if (auto v = m.get("unit")) parse_unit(*v, info, spec);
    if (auto v = m.get("store")) spec.own<SpecBpSettings>().store = parse_choice(info, "store", *v);
  };
  t.emit_keys = [](YAML::Emitter& out, const TechniqueSpec& spec, const TechniqueInfo& info) {
    out << YAML::Key << Plain{"threshold"} << YAML::Value;
    emit_double(out, spec.get<SpecBpSettings>().threshold);
    out << YAML::Key << Plain{"unit"} << YAML::Value;
    emit_unit(out, spec, info);
    out << YAML::Key << Plain{"store"} << YAML::Value;
    emit_string(out, spec.get<SpecBpSettings>().store);
  };
  t.set_shorthand = [](double x, const std::string&, const ConfigNode&, TechniqueSpec& spec) {
    spec.own<SpecBpSettings>().threshold = x;
  };
  t.report_settings = [](const TechniqueSpec& spec, nlohmann::ordered_json& section) {
    section["threshold"] = spec.get<SpecBpSettings>().threshold;
    section["unit"] = spec.unit;
    section["store"] = spec.get<SpecBpSettings>().store;
  };
  // The threshold is what compare variants differ in, so the label always shows it.
  t.label = [](const TechniqueSpec& spec) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%s@%g", spec.kind.c_str(),
                  spec.get<SpecBpSettings>().threshold);
    return std::string(buf);
  };
  t.make = [](const TechniqueSpec& spec,
              Network<float>& net) -> std::unique_ptr<TrainingTechnique> {
    return std::make_unique<SpecBackprop>(spec, net);
  };
  // The speculative backward pass runs on the second unit (train_batch's on_unit(1)): an
  // array of its own beside the main one, or the main array after the forward pass.
  t.hardware = [](const TechniqueSpec& spec, const NetShape&, int) {
    TechniqueHardware hw;
    const bool own = spec.unit == "own";
    hw.second_unit = own ? TechniqueHardware::SecondUnit::kOwnArray
                         : TechniqueHardware::SecondUnit::kSharedArray;
    hw.unit_suffix = "-specbp-unit";
    hw.unit_rows = spec.unit_rows;
    hw.unit_cols = spec.unit_cols;
    hw.store_in_dram = spec.get<SpecBpSettings>().store == "dram";
    return hw;
  };
  t.lower_ops = [](const TechniqueHardware& hw, const NetShape&, std::size_t layer, int what,
                   std::int64_t n, int, int word_bits) {
    Op op;
    if (what == kSpecbpCompare) {
      // Subtract, absolute value and accumulate per output, then one compare with the
      // threshold; both softmax vectors are on chip.
      static const OpRole compare = technique_role("compare");
      op = Op::make_eltwise({n, 2, 0, 3}, compare, static_cast<int>(layer));
      op.eltwise.dram = false;
    } else {
      // The forward pass's activations are copied into the label's slot: on chip they are
      // written to the store partition of the buffer; in DRAM they are streamed out.
      static const OpRole store = technique_role("store");
      op = Op::make_eltwise({n, 0, 1, 0}, store, static_cast<int>(layer));
      op.eltwise.dram = hw.store_in_dram;
    }
    op.word_bits = word_bits;
    return std::vector<Op>{op};
  };
  // No shape-only plan: hits and misses, and so the work, depend on the data.
  return t;
}

}  // namespace trainsim
