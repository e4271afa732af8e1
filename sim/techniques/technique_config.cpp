#include "sim/techniques/technique_config.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>

#include "sim/techniques/technique.h"
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
    if (info.shorthand.empty() || info.set_shorthand == nullptr)
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
    info.set_shorthand(x, text, *node, t);
    return t;
  }
  ConfigMap m = node->as_map();
  if (auto k = m.get("kind")) t.kind = k->as_nonempty_string();
  const TechniqueInfo& info = technique_or_fail(t.kind, m.get("kind") ? *m.get("kind") : *node);
  std::vector<std::string> allowed = {"kind"};
  allowed.insert(allowed.end(), info.keys.begin(), info.keys.end());
  m.allow_only(allowed);
  if (info.parse_keys) info.parse_keys(m, info, t);
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
  out << YAML::Key << Plain{"kind"} << YAML::Value;
  emit_string(out, t.kind);
  // The technique writes its own keys (TechniqueInfo::emit_keys).
  if (info->emit_keys == nullptr)
    throw std::logic_error("technique " + t.kind + " has keys the resolved YAML cannot write");
  info->emit_keys(out, t, *info);
  out << YAML::EndMap;
}

}  // namespace trainsim
