#include "sim/techniques/adagp_keys.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>

#include "sim/techniques/adagp_settings.h"
#include "sim/techniques/technique_keys.h"
#include "sim/yaml/key_ranges.h"
#include "sim/yaml/yaml_emit.h"
#include "sim/yaml/yaml_reader.h"

namespace trainsim {

void parse_adagp_keys(const ConfigMap& m, const TechniqueInfo& info, TechniqueSpec& t) {
  AdaGpSettings& a = t.own<AdaGpSettings>();
  if (auto v = m.get("unit")) parse_unit(*v, info, t);
  if (auto v = m.get("warmup_epochs")) a.warmup_epochs = v->as_int_in(key_range::kEpochsOrZero);
  if (auto v = m.get("phase_gp")) a.phase_gp = parse_choice(info, "phase_gp", *v);
  if (auto v = m.get("schedule")) {
    a.schedule.clear();
    for (const ConfigNode& item : v->as_sequence()) {
      const std::vector<ConfigNode> kme = item.as_sequence();
      if (kme.size() != 3) item.fail("expected [k, m, epochs] (epochs 0 = until the end)");
      a.schedule.push_back({kme[0].as_int_in(key_range::kGpBatches),
                            kme[1].as_int_in(key_range::kBpBatches),
                            kme[2].as_int_in(key_range::kEpochsOrZero)});
    }
    if (a.schedule.empty()) v->fail("expected at least one [k, m, epochs] entry");
  }
  if (auto v = m.get("predictor")) {
    ConfigMap p = v->as_map();
    p.allow_only({"size", "channels", "lr", "calibrate"});
    if (auto x = p.get("size")) a.predictor_size = x->as_int_in(key_range::kPredictorSize);
    if (auto x = p.get("channels"))
      a.predictor_channels = x->as_int_in(key_range::kPredictorChannels);
    if (auto x = p.get("lr")) a.predictor_lr = x->as_double_positive();
    if (auto x = p.get("calibrate")) a.predictor_calibrate = x->as_bool();
  }
  if (auto v = m.get("oracle")) {
    ConfigMap o = v->as_map();
    o.allow_only({"cosine", "magnitude", "persistent"});
    if (auto x = o.get("cosine")) {
      a.oracle_cosine = x->as_double();
      if (a.oracle_cosine < -1 || a.oracle_cosine > 1)
        x->fail("must be in [-1, 1], got " + x->as_string());
    }
    if (auto x = o.get("magnitude")) a.oracle_magnitude = x->as_double_non_negative();
    if (auto x = o.get("persistent")) a.oracle_persistent = x->as_bool();
    // An oracle quality under another phase_gp would be silently ignored (the defaults, which
    // the resolved YAML always writes, mean nothing either way).
    const bool set = a.oracle_cosine != 1 || a.oracle_magnitude != 1 || a.oracle_persistent;
    if (set && a.phase_gp != "oracle")
      v->fail("applies only with phase_gp: oracle (phase_gp is '" + a.phase_gp + "')");
  }
  if (auto v = m.get("diagnostics")) a.diagnostics = v->as_bool();
}

void emit_adagp_keys(YAML::Emitter& out, const TechniqueSpec& t, const TechniqueInfo& info) {
  const AdaGpSettings& a = t.get<AdaGpSettings>();
  // In the order resolved YAML has always listed them (checkpoints compare it byte by byte).
  out << YAML::Key << Plain{"warmup_epochs"} << YAML::Value << a.warmup_epochs;
  out << YAML::Key << Plain{"phase_gp"} << YAML::Value;
  emit_string(out, a.phase_gp);
  out << YAML::Key << Plain{"schedule"} << YAML::Value << YAML::Flow << YAML::BeginSeq;
  for (const auto& e : a.schedule)
    out << YAML::Flow << YAML::BeginSeq << e[0] << e[1] << e[2] << YAML::EndSeq;
  out << YAML::EndSeq;
  out << YAML::Key << Plain{"predictor"} << YAML::Value << YAML::BeginMap;
  out << YAML::Key << Plain{"size"} << YAML::Value << a.predictor_size;
  out << YAML::Key << Plain{"channels"} << YAML::Value << a.predictor_channels;
  out << YAML::Key << Plain{"lr"} << YAML::Value;
  emit_double(out, a.predictor_lr);
  out << YAML::Key << Plain{"calibrate"} << YAML::Value << a.predictor_calibrate;
  out << YAML::EndMap;
  out << YAML::Key << Plain{"oracle"} << YAML::Value << YAML::BeginMap;
  out << YAML::Key << Plain{"cosine"} << YAML::Value;
  emit_double(out, a.oracle_cosine);
  out << YAML::Key << Plain{"magnitude"} << YAML::Value;
  emit_double(out, a.oracle_magnitude);
  out << YAML::Key << Plain{"persistent"} << YAML::Value << a.oracle_persistent;
  out << YAML::EndMap;
  out << YAML::Key << Plain{"diagnostics"} << YAML::Value << a.diagnostics;
  if (std::find(info.keys.begin(), info.keys.end(), "unit") != info.keys.end()) {
    out << YAML::Key << Plain{"unit"} << YAML::Value;
    emit_unit(out, t, info);
  }
}

void set_adagp_shorthand(double x, const std::string& text, const ConfigNode& where,
                         TechniqueSpec& t) {
  AdaGpSettings& a = t.own<AdaGpSettings>();
  // Range-checked before the conversion, which is undefined for values beyond int.
  const IntRange r = key_range::kEpochsOrZero;
  if (x != std::floor(x) || x > static_cast<double>(r.max))
    where.fail("'" + text + "': warmup_epochs must be an integer in [" + std::to_string(r.min) +
               ", " + std::to_string(r.max) + "]");
  a.warmup_epochs = static_cast<int>(x);
}

}  // namespace trainsim
