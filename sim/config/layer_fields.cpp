#include "sim/config/layer_fields.h"

#include <stdexcept>

#include "sim/config/yaml_emit.h"

namespace trainsim {

namespace {

const LayerField kLayerFields[] = {
    {"units", [](const ConfigNode& v, LayerSpec& l) { l.units = v.as_int_at_least(1); },
     [](YAML::Emitter& o, const LayerSpec& l) { o << l.units; }},
    {"filters", [](const ConfigNode& v, LayerSpec& l) { l.filters = v.as_int_at_least(1); },
     [](YAML::Emitter& o, const LayerSpec& l) { o << l.filters; }},
    {"kernel", [](const ConfigNode& v, LayerSpec& l) { l.kernel = v.as_int_at_least(1); },
     [](YAML::Emitter& o, const LayerSpec& l) { o << l.kernel; }},
    {"stride", [](const ConfigNode& v, LayerSpec& l) { l.stride = v.as_int_at_least(1); },
     [](YAML::Emitter& o, const LayerSpec& l) { o << l.stride; }},
    {"padding", [](const ConfigNode& v, LayerSpec& l) { l.padding = v.as_int_at_least(0); },
     [](YAML::Emitter& o, const LayerSpec& l) { o << l.padding; }},
    {"slope", [](const ConfigNode& v, LayerSpec& l) { l.slope = v.as_double_non_negative(); },
     [](YAML::Emitter& o, const LayerSpec& l) { emit_double(o, l.slope); }},
    {"bias", [](const ConfigNode& v, LayerSpec& l) { l.bias = v.as_bool(); },
     [](YAML::Emitter& o, const LayerSpec& l) { o << l.bias; }},
};

}  // namespace

const LayerField& layer_field(const std::string& key) {
  for (const auto& f : kLayerFields) {
    if (key == f.key) return f;
  }
  throw std::logic_error("config parser has no reader for layer key '" + key + "'");
}

std::vector<std::string> required_layer_keys(const std::string& type) {
  if (type == "dense") return {"units"};
  if (type == "conv2d") return {"filters", "kernel"};
  if (is_pool_type(type)) return {"kernel"};
  return {};
}

bool is_pool_type(const std::string& type) {
  return type == "maxpool2d" || type == "avgpool2d";
}

}  // namespace trainsim
