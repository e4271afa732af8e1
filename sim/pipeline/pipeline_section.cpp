#include "sim/pipeline/pipeline_section.h"

#include "sim/pipeline/pipeline_config.h"
#include "sim/yaml/yaml_emit.h"

namespace trainsim {

namespace {

void emit_pipeline(YAML::Emitter& out, const PipelineSpec& p) {
  out << YAML::BeginMap;
  out << YAML::Key << Plain{"schedule"} << YAML::Value;
  emit_string(out, p.schedule);
  out << YAML::Key << Plain{"micro_batches"} << YAML::Value << p.micro_batches;
  out << YAML::Key << Plain{"chunks"} << YAML::Value << p.chunks;
  out << YAML::Key << Plain{"replicas"} << YAML::Value << p.replicas;
  out << YAML::Key << Plain{"stages"} << YAML::Value;
  if (p.stages.empty()) {
    out << "auto";
  } else {
    out << YAML::Flow << YAML::BeginSeq;
    for (const auto& r : p.stages)
      out << YAML::Flow << YAML::BeginSeq << r[0] << r[1] << YAML::EndSeq;
    out << YAML::EndSeq;
  }
  if (!p.orders.empty()) {
    out << YAML::Key << Plain{"orders"} << YAML::Value << YAML::BeginSeq;
    for (const auto& list : p.orders) {
      out << YAML::Flow << YAML::BeginSeq;
      for (const std::string& t : list) out << t;
      out << YAML::EndSeq;
    }
    out << YAML::EndSeq;
  }
  out << YAML::EndMap;
}

class PipelineSection final : public ExperimentSection {
 public:
  std::vector<std::string> keys() const override { return {"pipeline"}; }

  void parse(const ConfigMap& m, const SectionInput&, ExperimentSpec& spec) const override {
    // `hype: none` (e.g. --set hype=none) is one device, as no `hype:` at all. With a `hype:`,
    // every op is placed over the system's devices, not stages: a pipeline is checked as ever
    // (against a system the experiment names), then set aside.
    auto hype = m.get("hype");
    if (hype && hype->is_scalar() && hype->as_string() == "none") hype.reset();
    auto v = m.get("pipeline");
    const ConfigNode& top = m.node();
    if (hype) {
      if (!v) return;
      if (spec.system.present()) parse_pipeline(&*v, top, spec);
      spec.notes.push_back("pipeline: unused, hype: places every op, not stages");
      return;
    }
    spec.pipeline = parse_pipeline(v ? &*v : nullptr, top, spec);
    if (v && !spec.system.present())
      spec.notes.push_back("pipeline: unused, the experiment runs on one device (no system)");
  }

  void emit(YAML::Emitter& out, const ExperimentSpec& spec) const override {
    if (!spec.system.present() || !spec.system.implied_by.empty() || spec.hype) return;
    out << YAML::Key << Plain{"pipeline"} << YAML::Value;
    emit_pipeline(out, spec.pipeline);
  }
};

}  // namespace

const ExperimentSection& pipeline_section() {
  static const PipelineSection s;
  return s;
}

}  // namespace trainsim
