#include "sim/config/experiment_parser.h"

#include <algorithm>
#include <iterator>
#include <memory>
#include <stdexcept>

#include "sim/core/error.h"
#include "sim/yaml/yaml_file.h"

namespace trainsim {

namespace {

// The section that owns a top-level key, or null.
const ExperimentSection* owner(const ExperimentSections& sections, const std::string& key) {
  for (const ExperimentSection* s : sections.parse_order)
    for (const std::string& k : s->keys())
      if (k == key) return s;
  return nullptr;
}

// Applies the --set overrides to the experiment tree, each after the section owning its key
// has prepared the tree (a file named by reference inlined, a value merged); a whole new value
// replaces whatever was inlined at or under its key.
void apply_overrides(YAML::Node root, const std::vector<std::string>& overrides,
                     const std::string& path, const ExperimentSections& sections,
                     ConfigOrigin& origin, InlinedFiles& inlined, std::vector<std::string>& notes) {
  for (const auto& text : overrides) {
    Override o = parse_override(text);
    if (!root.IsMap()) {
      throw UserError("--set " + text + ": " + path + " is not a mapping of keys");
    }
    if (const ExperimentSection* s = owner(sections, o.segments[0])) {
      OverrideStep step{root, o, path, origin, inlined, notes};
      s->before_override(step);
    }
    const std::string key_path = apply_override(root, o);
    for (auto it = inlined.begin(); it != inlined.end();) {
      const std::string& k = it->first;
      const bool under = k == key_path || k.compare(0, key_path.size() + 1, key_path + ".") == 0;
      it = under ? inlined.erase(it) : std::next(it);
    }
    origin.overridden.insert(key_path);
  }
}

}  // namespace

ExperimentSpec parse_experiment(const std::string& path, const std::vector<std::string>& overrides,
                                const ExperimentSections& sections) {
  YAML::Node root = load_yaml_file(path, "experiment");
  // An empty file is a null node without storage; overrides need a mapping to write into.
  if (!overrides.empty() && (!root.IsDefined() || root.IsNull())) {
    root = YAML::Node(YAML::NodeType::Map);
  }
  ConfigOrigin origin;
  origin.file = path;
  InlinedFiles inlined;
  ExperimentSpec spec;
  apply_overrides(root, overrides, path, sections, origin, inlined, spec.notes);

  ConfigNode top(root, "", std::make_shared<const ConfigOrigin>(origin));
  ConfigMap m = top.as_map();
  std::size_t owned = 0;
  for (const ExperimentSection* s : sections.parse_order)
    for (const std::string& k : s->keys()) {
      ++owned;
      if (std::find(sections.key_order.begin(), sections.key_order.end(), k) ==
          sections.key_order.end())
        throw std::logic_error("experiment sections: key '" + k + "' is not in key_order");
    }
  if (owned != sections.key_order.size())
    throw std::logic_error("experiment sections: key_order lists keys no section owns");
  m.allow_only(sections.key_order);

  spec.source = path;
  const SectionInput in{path, inlined};
  for (const ExperimentSection* s : sections.parse_order) s->parse(m, in, spec);
  for (const ExperimentSection* s : sections.parse_order) s->check(m, spec);
  return spec;
}

std::string emit_experiment(const ExperimentSpec& spec, const ExperimentSections& sections) {
  YAML::Emitter out;
  out << YAML::BeginMap;
  for (const ExperimentSection* s : sections.emit_order) s->emit(out, spec);
  out << YAML::EndMap;
  return std::string(out.c_str()) + "\n";
}

}  // namespace trainsim
