// The experiment's own keys (experiment_parser.h): what to call the run, whether it trains for
// real, which data it reads and where its results go.
#include "sim/config/experiment_parser.h"
#include "sim/yaml/config_files.h"
#include "sim/yaml/key_ranges.h"
#include "sim/yaml/yaml_emit.h"

namespace trainsim {

namespace {

class NameSection final : public ExperimentSection {
 public:
  std::vector<std::string> keys() const override { return {"name"}; }
  void parse(const ConfigMap& top, const SectionInput& in, ExperimentSpec& spec) const override {
    spec.name = config_file_stem(in.path);
    if (auto v = top.get("name")) spec.name = v->as_nonempty_string();
  }
  void emit(YAML::Emitter& out, const ExperimentSpec& spec) const override {
    out << YAML::Key << Plain{"name"} << YAML::Value;
    emit_string(out, spec.name);
  }
};

class NumericsSection final : public ExperimentSection {
 public:
  std::vector<std::string> keys() const override { return {"numerics"}; }
  void parse(const ConfigMap& top, const SectionInput&, ExperimentSpec& spec) const override {
    if (auto v = top.get("numerics")) spec.numerics = v->as_choice({"float", "none"});
  }
  void emit(YAML::Emitter& out, const ExperimentSpec& spec) const override {
    out << YAML::Key << Plain{"numerics"} << YAML::Value;
    emit_string(out, spec.numerics);
  }
};

class DatasetSection final : public ExperimentSection {
 public:
  std::vector<std::string> keys() const override { return {"dataset"}; }
  void parse(const ConfigMap& top, const SectionInput&, ExperimentSpec& spec) const override {
    ConfigMap m = top.require("dataset").as_map();
    m.allow_only({"name", "path", "train_limit", "test_limit"});
    DatasetSpec& d = spec.dataset;
    // Whether the name is a known dataset is the dataset registry's call, made when loading.
    d.name = m.require("name").as_nonempty_string();
    if (auto v = m.get("path")) d.path = v->as_string();
    if (auto v = m.get("train_limit")) d.train_limit = v->as_int64_in(key_range::kSampleLimit);
    if (auto v = m.get("test_limit")) d.test_limit = v->as_int64_in(key_range::kSampleLimit);
  }
  void emit(YAML::Emitter& out, const ExperimentSpec& spec) const override {
    out << YAML::Key << Plain{"dataset"} << YAML::Value << YAML::BeginMap;
    out << YAML::Key << Plain{"name"} << YAML::Value;
    emit_string(out, spec.dataset.name);
    out << YAML::Key << Plain{"path"} << YAML::Value;
    emit_string(out, spec.dataset.path);
    out << YAML::Key << Plain{"train_limit"} << YAML::Value << spec.dataset.train_limit;
    out << YAML::Key << Plain{"test_limit"} << YAML::Value << spec.dataset.test_limit;
    out << YAML::EndMap;
  }
};

class OutputSection final : public ExperimentSection {
 public:
  std::vector<std::string> keys() const override { return {"output"}; }
  void parse(const ConfigMap& top, const SectionInput&, ExperimentSpec& spec) const override {
    spec.output.dir = "runs/" + spec.name;
    if (auto v = top.get("output")) {
      ConfigMap out = v->as_map();
      out.allow_only({"dir"});
      if (auto dir = out.get("dir")) spec.output.dir = dir->as_nonempty_string();
    }
  }
  void emit(YAML::Emitter& out, const ExperimentSpec& spec) const override {
    out << YAML::Key << Plain{"output"} << YAML::Value << YAML::BeginMap;
    out << YAML::Key << Plain{"dir"} << YAML::Value;
    emit_string(out, spec.output.dir);
    out << YAML::EndMap;
  }
};

}  // namespace

const ExperimentSection& name_section() {
  static const NameSection s;
  return s;
}

const ExperimentSection& numerics_section() {
  static const NumericsSection s;
  return s;
}

const ExperimentSection& dataset_section() {
  static const DatasetSection s;
  return s;
}

const ExperimentSection& output_section() {
  static const OutputSection s;
  return s;
}

}  // namespace trainsim
