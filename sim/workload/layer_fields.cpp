#include "sim/workload/layer_fields.h"

#include <stdexcept>

#include "sim/yaml/key_ranges.h"
#include "sim/yaml/yaml_emit.h"

namespace trainsim {

namespace {

// `kernel: 3` or `kernel: [1, 7]` (height, width); likewise padding.
void read_pair(const ConfigNode& v, IntRange range, int& h, int& w) {
  if (!v.is_sequence()) {
    h = w = v.as_int_in(range);
    return;
  }
  std::vector<ConfigNode> d = v.as_sequence();
  if (d.size() != 2)
    v.fail("expected an integer or [height, width], got " + std::to_string(d.size()) + " values");
  h = d[0].as_int_in(range);
  w = d[1].as_int_in(range);
}

void write_pair(YAML::Emitter& o, int h, int w) {
  if (h == w) {
    o << h;
    return;
  }
  o << YAML::Flow << YAML::BeginSeq << h << w << YAML::EndSeq;
}

const LayerField kLayerFields[] = {
    {"units", [](const ConfigNode& v, LayerSpec& l) { l.units = v.as_int_in(key_range::kExtent); },
     [](YAML::Emitter& o, const LayerSpec& l) { o << l.units; }},
    {"filters",
     [](const ConfigNode& v, LayerSpec& l) { l.filters = v.as_int_in(key_range::kExtent); },
     [](YAML::Emitter& o, const LayerSpec& l) { o << l.filters; }},
    {"kernel",
     [](const ConfigNode& v, LayerSpec& l) {
       read_pair(v, key_range::kWindow, l.kernel, l.kernel_w);
     },
     [](YAML::Emitter& o, const LayerSpec& l) { write_pair(o, l.kernel, l.kernel_width()); }},
    {"stride",
     [](const ConfigNode& v, LayerSpec& l) { l.stride = v.as_int_in(key_range::kWindow); },
     [](YAML::Emitter& o, const LayerSpec& l) { o << l.stride; }},
    {"padding",
     [](const ConfigNode& v, LayerSpec& l) {
       read_pair(v, key_range::kPadding, l.padding, l.padding_w);
     },
     [](YAML::Emitter& o, const LayerSpec& l) { write_pair(o, l.padding, l.padding_width()); }},
    {"groups",
     [](const ConfigNode& v, LayerSpec& l) { l.groups = v.as_int_in(key_range::kExtent); },
     [](YAML::Emitter& o, const LayerSpec& l) { o << l.groups; }},
    {"size",
     [](const ConfigNode& v, LayerSpec& l) {
       std::vector<ConfigNode> d = v.as_sequence();
       if (d.size() != 2)
         v.fail("expected [height, width], got " + std::to_string(d.size()) + " values");
       l.size = {{d[0].as_int_in(key_range::kExtent), d[1].as_int_in(key_range::kExtent)}};
     },
     [](YAML::Emitter& o, const LayerSpec& l) {
       o << YAML::Flow << YAML::BeginSeq << l.size[0] << l.size[1] << YAML::EndSeq;
     }},
    {"shape",
     [](const ConfigNode& v, LayerSpec& l) {
       std::vector<ConfigNode> d = v.as_sequence();
       if (d.size() != 3)
         v.fail("expected [channels, height, width], got " + std::to_string(d.size()) + " values");
       l.shape = {{d[0].as_int_in(key_range::kExtent), d[1].as_int_in(key_range::kExtent),
                   d[2].as_int_in(key_range::kExtent)}};
     },
     [](YAML::Emitter& o, const LayerSpec& l) {
       o << YAML::Flow << YAML::BeginSeq << l.shape[0] << l.shape[1] << l.shape[2] << YAML::EndSeq;
     }},
    {"from",
     [](const ConfigNode& v, LayerSpec& l) {
       l.from.clear();
       if (!v.is_sequence()) {
         l.from.push_back(v.as_nonempty_string());
         return;
       }
       for (const ConfigNode& n : v.as_sequence()) l.from.push_back(n.as_nonempty_string());
       if (l.from.empty()) v.fail("expected at least one layer name");
     },
     [](YAML::Emitter& o, const LayerSpec& l) {
       if (l.from.size() == 1) {
         emit_string(o, l.from[0]);
         return;
       }
       o << YAML::Flow << YAML::BeginSeq;
       for (const auto& f : l.from) emit_string(o, f);
       o << YAML::EndSeq;
     }},
    {"slope", [](const ConfigNode& v, LayerSpec& l) { l.slope = v.as_double_non_negative(); },
     [](YAML::Emitter& o, const LayerSpec& l) { emit_double(o, l.slope); }},
    {"bias", [](const ConfigNode& v, LayerSpec& l) { l.bias = v.as_bool(); },
     [](YAML::Emitter& o, const LayerSpec& l) { o << l.bias; }},
    {"output_padding",
     [](const ConfigNode& v, LayerSpec& l) { l.output_padding = v.as_int_in(key_range::kPadding); },
     [](YAML::Emitter& o, const LayerSpec& l) { o << l.output_padding; }},
    {"vocab", [](const ConfigNode& v, LayerSpec& l) { l.vocab = v.as_int_in(key_range::kExtent); },
     [](YAML::Emitter& o, const LayerSpec& l) { o << l.vocab; }},
    {"heads", [](const ConfigNode& v, LayerSpec& l) { l.heads = v.as_int_in(key_range::kExtent); },
     [](YAML::Emitter& o, const LayerSpec& l) { o << l.heads; }},
    {"transpose_b", [](const ConfigNode& v, LayerSpec& l) { l.transpose_b = v.as_bool(); },
     [](YAML::Emitter& o, const LayerSpec& l) { o << l.transpose_b; }},
    {"rate", [](const ConfigNode& v, LayerSpec& l) { l.rate = v.as_double_unit(); },
     [](YAML::Emitter& o, const LayerSpec& l) { emit_double(o, l.rate); }},
};

}  // namespace

const LayerField& layer_field(const std::string& key) {
  for (const auto& f : kLayerFields) {
    if (key == f.key) return f;
  }
  throw std::logic_error("config parser has no reader for layer key '" + key + "'");
}

}  // namespace trainsim
