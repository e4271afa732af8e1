// Each technique parses and writes its own keys (TechniqueInfo::parse_keys, emit_keys): the
// resolved YAML of a technique has exactly the keys it declares, and reading it back gives
// the same spec.
#include <yaml-cpp/yaml.h>

#include <catch2/catch.hpp>
#include <memory>
#include <set>
#include <string>

#include "sim/techniques/adagp_settings.h"
#include "sim/techniques/specbp_settings.h"
#include "sim/techniques/technique.h"
#include "sim/techniques/technique_config.h"
#include "sim/yaml/yaml_reader.h"

namespace trainsim {

namespace {

ConfigNode node_of(const YAML::Node& yaml) {
  return ConfigNode(yaml, "technique", std::make_shared<ConfigOrigin>());
}

std::string emitted(const TechniqueSpec& spec) {
  YAML::Emitter out;
  emit_technique(out, spec);
  return out.c_str();
}

}  // namespace

TEST_CASE("A technique writes exactly the keys it declares, and reads them back",
          "[techniques][config]") {
  for (const TechniqueInfo& info : techniques()) {
    INFO(info.name);
    TechniqueSpec spec;
    spec.kind = info.name;
    const YAML::Node written = YAML::Load(emitted(spec));
    if (info.keys.empty()) {
      CHECK(written.IsScalar());
      continue;
    }
    REQUIRE(written.IsMap());
    std::set<std::string> keys;
    for (const auto& kv : written) keys.insert(kv.first.as<std::string>());
    std::set<std::string> declared(info.keys.begin(), info.keys.end());
    declared.insert("kind");
    CHECK(keys == declared);
    const ConfigNode parent = node_of(YAML::Node(YAML::NodeType::Map));
    const ConfigNode node = node_of(written);
    CHECK(parse_technique(&node, parent) == spec);
  }
}

TEST_CASE("A technique's non-default keys survive the round trip", "[techniques][config]") {
  const ConfigNode parent = node_of(YAML::Node(YAML::NodeType::Map));
  const char* texts[] = {
      "{kind: specbp, threshold: 0.4, unit: {array: shared, rows: 4, cols: 6}, store: dram}",
      "{kind: adagp-max, warmup_epochs: 2, schedule: [[3, 1, 2], [1, 1, 0]], unit: {rows: 8},"
      " predictor: {size: 6, channels: 3, lr: 0.001, calibrate: false}, phase_gp: oracle,"
      " oracle: {cosine: 0.5, magnitude: 2, persistent: true}, diagnostics: true}",
      "{kind: adagp-low, phase_gp: zero}",
  };
  for (const char* text : texts) {
    INFO(text);
    const ConfigNode node = node_of(YAML::Load(text));
    const TechniqueSpec spec = parse_technique(&node, parent);
    const ConfigNode again = node_of(YAML::Load(emitted(spec)));
    CHECK(parse_technique(&again, parent) == spec);
  }
  // The shorthand sets the technique's own key.
  const ConfigNode at = node_of(YAML::Load("adagp-efficient@3"));
  CHECK(parse_technique(&at, parent).get<AdaGpSettings>().warmup_epochs == 3);
  const ConfigNode threshold = node_of(YAML::Load("specbp@0.1"));
  CHECK(parse_technique(&threshold, parent).get<SpecBpSettings>().threshold == 0.1);
  const ConfigNode bad = node_of(YAML::Load("adagp-max@2.5"));
  CHECK_THROWS_WITH(parse_technique(&bad, parent),
                    Catch::Contains("warmup_epochs must be an integer"));
}

}  // namespace trainsim
