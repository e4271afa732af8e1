#include "sim/hype/hype_section.h"

#include <memory>

#include "sim/hype/hype_config.h"
#include "sim/hype/hype_spec.h"
#include "sim/yaml/yaml_emit.h"

namespace trainsim {

namespace {

class HypeSection final : public ExperimentSection {
 public:
  std::vector<std::string> keys() const override { return {"hype"}; }

  void parse(const ConfigMap& m, const SectionInput& in, ExperimentSpec& spec) const override {
    // `hype: none` (e.g. --set hype=none) is one device, as no `hype:` at all.
    auto v = m.get("hype");
    if (!v || (v->is_scalar() && v->as_string() == "none")) return;
    if (spec.system.present()) {
      // A system written in the experiment may not set links; a named one (a preset or a
      // file, overridden or not) keeps its own, unused, with a note.
      const ConfigNode system_node = m.require("system");
      const bool own = system_node.is_map() && in.inlined.count("system") == 0;
      spec.hype = std::make_shared<const HypeSpec>(
          parse_hype(*v, in.path, &spec.system, own ? &system_node : nullptr));
      if (!own)
        spec.notes.push_back(
            "system: its topology and links are unused under hype:, whose "
            "devices talk over the host (hype.links)");
    } else {
      // `hype:` names its own devices: they are the experiment's system all the same.
      spec.hype = std::make_shared<const HypeSpec>(parse_hype(*v, in.path));
      spec.system = implied_system(*v, *spec.hype, in.path, spec.sim);
    }
    // What only offloading reads is unused on GPUs alone: say so rather than ignore it.
    for (const char* key : {"thresholds", "overlap_rule", "offload_types"})
      if (spec.hype->offloads == 0 && spec.hype->raw[key])
        spec.notes.push_back(std::string("hype.") + key +
                             ": unused, the system has no offload devices");
  }

  void emit(YAML::Emitter& out, const ExperimentSpec& spec) const override {
    if (!spec.hype) return;
    // As written: its devices are named presets or files, its figures the user's.
    out << YAML::Key << Plain{"hype"} << YAML::Value << spec.hype->raw;
  }
};

}  // namespace

const ExperimentSection& hype_section() {
  static const HypeSection s;
  return s;
}

}  // namespace trainsim
