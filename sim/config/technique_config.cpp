#include "sim/config/technique_config.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>

#include "sim/techniques/technique.h"
#include "sim/yaml/key_ranges.h"
#include "sim/yaml/yaml_emit.h"

namespace trainsim {

namespace {

std::string known_techniques() {
  std::string out;
  for (const auto& t : techniques()) out += (out.empty() ? "" : ", ") + t.name;
  return out;
}

const TechniqueInfo& technique_or_fail(const std::string& kind, const ConfigNode& where) {
  const TechniqueInfo* info = find_technique(kind);
  if (info == nullptr)
    where.fail("unknown technique '" + kind + "' (known: " + known_techniques() + ")");
  return *info;
}

// A key whose value is one of the names the technique lists for it.
std::string parse_choice(const TechniqueInfo& info, const std::string& key, const ConfigNode& v) {
  const std::vector<std::string>* names = info.choices_of(key);
  if (names == nullptr)
    throw std::logic_error("technique " + info.name + " lists no names for its key " + key);
  return v.as_choice(*names);
}

// The technique's extra array: which of its keys apply is the technique's to say.
void parse_unit(const ConfigNode& node, const TechniqueInfo& info, TechniqueSpec& t) {
  ConfigMap m = node.as_map();
  m.allow_only(info.unit_keys);
  if (auto v = m.get("array")) t.unit = parse_choice(info, "unit.array", *v);
  if (auto v = m.get("rows")) t.unit_rows = v->as_int_in(key_range::kUnitExtent);
  if (auto v = m.get("cols")) t.unit_cols = v->as_int_in(key_range::kUnitExtent);
}

// How each technique key's resolved value is written, in the order the resolved YAML lists
// them; a technique's mapping has the keys it declares.
using KeyEmitter = void (*)(YAML::Emitter& out, const TechniqueSpec& t, const TechniqueInfo& info);
const std::vector<std::pair<std::string, KeyEmitter>>& key_emitters() {
  static const std::vector<std::pair<std::string, KeyEmitter>> all = {
      {"threshold", [](YAML::Emitter& out, const TechniqueSpec& t,
                       const TechniqueInfo&) { emit_double(out, t.threshold); }},
      {"warmup_epochs", [](YAML::Emitter& out, const TechniqueSpec& t,
                           const TechniqueInfo&) { out << t.warmup_epochs; }},
      {"phase_gp", [](YAML::Emitter& out, const TechniqueSpec& t,
                      const TechniqueInfo&) { emit_string(out, t.phase_gp); }},
      {"schedule",
       [](YAML::Emitter& out, const TechniqueSpec& t, const TechniqueInfo&) {
         out << YAML::Flow << YAML::BeginSeq;
         for (const auto& e : t.schedule)
           out << YAML::Flow << YAML::BeginSeq << e[0] << e[1] << e[2] << YAML::EndSeq;
         out << YAML::EndSeq;
       }},
      {"predictor",
       [](YAML::Emitter& out, const TechniqueSpec& t, const TechniqueInfo&) {
         out << YAML::BeginMap;
         out << YAML::Key << "size" << YAML::Value << t.predictor_size;
         out << YAML::Key << "channels" << YAML::Value << t.predictor_channels;
         out << YAML::Key << "lr" << YAML::Value;
         emit_double(out, t.predictor_lr);
         out << YAML::Key << "calibrate" << YAML::Value << t.predictor_calibrate;
         out << YAML::EndMap;
       }},
      {"oracle",
       [](YAML::Emitter& out, const TechniqueSpec& t, const TechniqueInfo&) {
         out << YAML::BeginMap;
         out << YAML::Key << "cosine" << YAML::Value;
         emit_double(out, t.oracle_cosine);
         out << YAML::Key << "magnitude" << YAML::Value;
         emit_double(out, t.oracle_magnitude);
         out << YAML::Key << "persistent" << YAML::Value << t.oracle_persistent;
         out << YAML::EndMap;
       }},
      {"diagnostics", [](YAML::Emitter& out, const TechniqueSpec& t,
                         const TechniqueInfo&) { out << t.diagnostics; }},
      {"unit",
       [](YAML::Emitter& out, const TechniqueSpec& t, const TechniqueInfo& info) {
         out << YAML::BeginMap;
         for (const std::string& key : info.unit_keys) {
           out << YAML::Key << key << YAML::Value;
           if (key == "array")
             emit_string(out, t.unit);
           else
             out << (key == "rows" ? t.unit_rows : t.unit_cols);
         }
         out << YAML::EndMap;
       }},
      {"store", [](YAML::Emitter& out, const TechniqueSpec& t,
                   const TechniqueInfo&) { emit_string(out, t.store); }},
  };
  return all;
}

}  // namespace

YAML::Node merge_technique_override(const YAML::Node& existing, const YAML::Node& value,
                                    std::vector<std::string>* dropped) {
  const std::string text = value.as<std::string>();
  const auto at = text.find('@');
  const TechniqueInfo* info = find_technique(text.substr(0, at));
  if (info == nullptr || (at != std::string::npos && info->shorthand.empty())) return value;
  // The shorthand's parameter first: when it is not YAML the value is returned as it is (its
  // own parser names the error), and nothing may be reported as dropped.
  YAML::Node parameter;
  if (at != std::string::npos) {
    try {
      parameter = YAML::Load(text.substr(at + 1));
    } catch (const YAML::Exception&) {
      return value;
    }
  }
  YAML::Node merged(YAML::NodeType::Map);
  merged["kind"] = info->name;
  for (const auto& kv : existing) {
    // A key that is not a scalar (`{a, b}: 1`) is no technique key: dropped like any other.
    if (!kv.first.IsScalar()) {
      if (dropped) dropped->push_back("(a key that is not a name)");
      continue;
    }
    const std::string key = kv.first.as<std::string>();
    if (key == "kind") continue;
    if (std::find(info->keys.begin(), info->keys.end(), key) != info->keys.end())
      merged[key] = kv.second;
    else if (dropped)
      dropped->push_back(key);
  }
  if (at != std::string::npos) merged[info->shorthand] = parameter;
  return merged;
}

TechniqueSpec parse_technique(const ConfigNode* node, const ConfigNode& parent) {
  TechniqueSpec t;
  if (node == nullptr) return t;
  if (node->is_scalar()) {
    const std::string text = node->as_nonempty_string();
    const auto at = text.find('@');
    t.kind = text.substr(0, at);
    const TechniqueInfo& info = technique_or_fail(t.kind, *node);
    if (at == std::string::npos) return t;
    if (info.shorthand.empty())
      node->fail("technique '" + t.kind + "' takes no parameter (got '" + text + "')");
    const std::string value = text.substr(at + 1);
    std::size_t used = 0;
    double x = -1;
    try {
      x = std::stod(value, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != value.size() || !(x >= 0) || !std::isfinite(x))
      node->fail("'" + text + "': " + info.shorthand + " must be a number >= 0, got '" + value +
                 "'");
    if (info.shorthand == "warmup_epochs") {
      // Range-checked before the conversion, which is undefined for values beyond int.
      const IntRange r = key_range::kEpochsOrZero;
      if (x != std::floor(x) || x > static_cast<double>(r.max))
        node->fail("'" + text + "': warmup_epochs must be an integer in [" + std::to_string(r.min) +
                   ", " + std::to_string(r.max) + "]");
      t.warmup_epochs = static_cast<int>(x);
    } else {
      t.threshold = x;
    }
    return t;
  }
  ConfigMap m = node->as_map();
  if (auto k = m.get("kind")) t.kind = k->as_nonempty_string();
  const TechniqueInfo& info = technique_or_fail(t.kind, m.get("kind") ? *m.get("kind") : *node);
  std::vector<std::string> allowed = {"kind"};
  allowed.insert(allowed.end(), info.keys.begin(), info.keys.end());
  m.allow_only(allowed);
  if (auto v = m.get("threshold")) t.threshold = v->as_double_non_negative();
  if (auto v = m.get("unit")) parse_unit(*v, info, t);
  if (auto v = m.get("store")) t.store = parse_choice(info, "store", *v);
  if (auto v = m.get("warmup_epochs")) t.warmup_epochs = v->as_int_in(key_range::kEpochsOrZero);
  if (auto v = m.get("phase_gp")) t.phase_gp = parse_choice(info, "phase_gp", *v);
  if (auto v = m.get("schedule")) {
    t.schedule.clear();
    for (const ConfigNode& item : v->as_sequence()) {
      const std::vector<ConfigNode> kme = item.as_sequence();
      if (kme.size() != 3) item.fail("expected [k, m, epochs] (epochs 0 = until the end)");
      t.schedule.push_back({kme[0].as_int_in(key_range::kGpBatches),
                            kme[1].as_int_in(key_range::kBpBatches),
                            kme[2].as_int_in(key_range::kEpochsOrZero)});
    }
    if (t.schedule.empty()) v->fail("expected at least one [k, m, epochs] entry");
  }
  if (auto v = m.get("predictor")) {
    ConfigMap p = v->as_map();
    p.allow_only({"size", "channels", "lr", "calibrate"});
    if (auto x = p.get("size")) t.predictor_size = x->as_int_in(key_range::kPredictorSize);
    if (auto x = p.get("channels"))
      t.predictor_channels = x->as_int_in(key_range::kPredictorChannels);
    if (auto x = p.get("lr")) t.predictor_lr = x->as_double_positive();
    if (auto x = p.get("calibrate")) t.predictor_calibrate = x->as_bool();
  }
  if (auto v = m.get("oracle")) {
    ConfigMap o = v->as_map();
    o.allow_only({"cosine", "magnitude", "persistent"});
    if (auto x = o.get("cosine")) {
      t.oracle_cosine = x->as_double();
      if (t.oracle_cosine < -1 || t.oracle_cosine > 1)
        x->fail("must be in [-1, 1], got " + x->as_string());
    }
    if (auto x = o.get("magnitude")) t.oracle_magnitude = x->as_double_non_negative();
    if (auto x = o.get("persistent")) t.oracle_persistent = x->as_bool();
    // An oracle quality under another phase_gp would be silently ignored (the defaults, which
    // the resolved YAML always writes, mean nothing either way).
    const bool set = t.oracle_cosine != 1 || t.oracle_magnitude != 1 || t.oracle_persistent;
    if (set && t.phase_gp != "oracle")
      v->fail("applies only with phase_gp: oracle (phase_gp is '" + t.phase_gp + "')");
  }
  if (auto v = m.get("diagnostics")) t.diagnostics = v->as_bool();
  (void)parent;
  return t;
}

void emit_technique(YAML::Emitter& out, const TechniqueSpec& t) {
  const TechniqueInfo* info = find_technique(t.kind);
  if (info == nullptr || info->keys.empty()) {
    emit_string(out, t.kind);
    return;
  }
  out << YAML::BeginMap;
  out << YAML::Key << "kind" << YAML::Value;
  emit_string(out, t.kind);
  std::size_t emitted = 0;
  for (const auto& [key, emit] : key_emitters()) {
    if (std::find(info->keys.begin(), info->keys.end(), key) == info->keys.end()) continue;
    out << YAML::Key << key << YAML::Value;
    emit(out, t, *info);
    ++emitted;
  }
  // A key added to a technique needs its line above, or the resolved YAML would drop it.
  if (emitted != info->keys.size())
    throw std::logic_error("technique " + t.kind + " has a key the resolved YAML cannot write");
  out << YAML::EndMap;
}

}  // namespace trainsim
