// resolved_yaml(): the fully defaulted experiment, written so that load_experiment() reads
// it back to the same spec. Field order is fixed (registry order for per-type keys), so
// equal specs give byte-identical text.
#include <yaml-cpp/yaml.h>

#include "models/platform/topology.h"
#include "sim/accel/accelerator_parse.h"
#include "sim/config/experiment_config.h"
#include "sim/hype/hype_spec.h"
#include "sim/nn/layer_registry.h"
#include "sim/optim/optimizer_fields.h"
#include "sim/optim/optimizer_registry.h"
#include "sim/techniques/technique_config.h"
#include "sim/workload/layer_fields.h"
#include "sim/yaml/yaml_emit.h"

namespace trainsim {

namespace {

void emit_layer(YAML::Emitter& out, const LayerSpec& layer) {
  // One flow mapping per layer keeps the layer list as readable as the shipped files.
  out << YAML::Flow << YAML::BeginMap;
  out << YAML::Key << "type" << YAML::Value;
  emit_string(out, layer.type);
  out << YAML::Key << "name" << YAML::Value;
  emit_string(out, layer.name);
  if (const LayerTypeInfo* info = find_layer_type(layer.type)) {
    for (const auto& key : info->keys) {
      if (key == "from" && layer.from.empty()) continue;  // sequential: the default
      out << YAML::Key << key << YAML::Value;
      layer_field(key).write(out, layer);
    }
  }
  out << YAML::EndMap;
}

void emit_network(YAML::Emitter& out, const NetworkSpec& net) {
  out << YAML::BeginMap;
  out << YAML::Key << "name" << YAML::Value;
  emit_string(out, net.name);
  if (!net.description.empty()) {
    out << YAML::Key << "description" << YAML::Value;
    emit_string(out, net.description);
  }
  out << YAML::Key << "input" << YAML::Value << YAML::Flow << YAML::BeginSeq << net.input[0]
      << net.input[1] << net.input[2] << YAML::EndSeq;
  out << YAML::Key << "classes" << YAML::Value << net.classes;
  out << YAML::Key << "init" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "scheme" << YAML::Value;
  emit_string(out, net.init.scheme);
  out << YAML::Key << "scale" << YAML::Value;
  emit_double(out, net.init.scale);
  out << YAML::EndMap;
  out << YAML::Key << "layers" << YAML::Value << YAML::BeginSeq;
  for (const auto& layer : net.layers) emit_layer(out, layer);
  out << YAML::EndSeq;
  out << YAML::EndMap;
}

void emit_optimizer(YAML::Emitter& out, const OptimizerSpec& opt) {
  out << YAML::BeginMap;
  out << YAML::Key << "kind" << YAML::Value;
  emit_string(out, opt.kind);
  if (const OptimizerInfo* info = find_optimizer(opt.kind)) {
    for (const auto& key : info->keys) {
      const OptimizerField& field = optimizer_field(key);
      if (field.written != nullptr && !field.written(opt)) continue;
      out << YAML::Key << key << YAML::Value;
      field.write(out, opt);
    }
  }
  out << YAML::EndMap;
}

void emit_link_figures(YAML::Emitter& out, const LinkSpec& l) {
  out << YAML::Key << "bandwidth_gbps" << YAML::Value;
  emit_double(out, l.bandwidth_gbps);
  out << YAML::Key << "latency_ns" << YAML::Value;
  emit_double(out, l.latency_ns);
  out << YAML::Key << "pj_per_bit" << YAML::Value;
  emit_double(out, l.pj_per_bit);
}

// The system inlined in full, every device with its accelerator, like the experiment's;
// without its links under hype:, whose devices talk over the host.
void emit_system(YAML::Emitter& out, const SystemSpec& s, bool links) {
  out << YAML::BeginMap;
  out << YAML::Key << "name" << YAML::Value;
  emit_string(out, s.name);
  out << YAML::Key << "devices" << YAML::Value << YAML::BeginSeq;
  for (const DeviceSpec& d : s.devices) {
    out << YAML::BeginMap;
    if (d.model) {
      out << YAML::Key << "device" << YAML::Value << YAML::Load(d.model_ref) << YAML::EndMap;
      continue;
    }
    out << YAML::Key << "accelerator" << YAML::Value;
    emit_accelerator(out, d.accelerator);
    out << YAML::Key << "dataflow" << YAML::Value;
    emit_string(out, d.dataflow);
    out << YAML::EndMap;
  }
  out << YAML::EndSeq;
  if (!links) {
    out << YAML::EndMap;
    return;
  }
  out << YAML::Key << "topology" << YAML::Value;
  emit_string(out, s.topology);
  out << YAML::Key << "link" << YAML::Value << YAML::BeginMap;
  emit_link_figures(out, s.link);
  out << YAML::EndMap;
  const Topology* topology = find_topology(s.topology);
  if (topology != nullptr && topology->build == nullptr) {  // the links are the config's own
    out << YAML::Key << "links" << YAML::Value << YAML::BeginSeq;
    for (const LinkSpec& l : s.net.links) {
      out << YAML::BeginMap << YAML::Key << "between" << YAML::Value << YAML::Flow << YAML::BeginSeq
          << l.a << l.b << YAML::EndSeq;
      emit_link_figures(out, l);
      out << YAML::EndMap;
    }
    out << YAML::EndSeq;
  }
  out << YAML::EndMap;
}

void emit_pipeline(YAML::Emitter& out, const PipelineSpec& p) {
  out << YAML::BeginMap;
  out << YAML::Key << "schedule" << YAML::Value;
  emit_string(out, p.schedule);
  out << YAML::Key << "micro_batches" << YAML::Value << p.micro_batches;
  out << YAML::Key << "chunks" << YAML::Value << p.chunks;
  out << YAML::Key << "replicas" << YAML::Value << p.replicas;
  out << YAML::Key << "stages" << YAML::Value;
  if (p.stages.empty()) {
    out << "auto";
  } else {
    out << YAML::Flow << YAML::BeginSeq;
    for (const auto& r : p.stages)
      out << YAML::Flow << YAML::BeginSeq << r[0] << r[1] << YAML::EndSeq;
    out << YAML::EndSeq;
  }
  if (!p.orders.empty()) {
    out << YAML::Key << "orders" << YAML::Value << YAML::BeginSeq;
    for (const auto& list : p.orders) {
      out << YAML::Flow << YAML::BeginSeq;
      for (const std::string& t : list) out << t;
      out << YAML::EndSeq;
    }
    out << YAML::EndSeq;
  }
  out << YAML::EndMap;
}

}  // namespace

std::string network_yaml(const NetworkSpec& net) {
  YAML::Emitter out;
  emit_network(out, net);
  return std::string(out.c_str()) + "\n";
}

std::string resolved_yaml(const ExperimentSpec& spec) {
  YAML::Emitter out;
  out << YAML::BeginMap;
  out << YAML::Key << "name" << YAML::Value;
  emit_string(out, spec.name);
  out << YAML::Key << "network" << YAML::Value;
  emit_network(out, spec.network);

  out << YAML::Key << "dataset" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "name" << YAML::Value;
  emit_string(out, spec.dataset.name);
  out << YAML::Key << "path" << YAML::Value;
  emit_string(out, spec.dataset.path);
  out << YAML::Key << "train_limit" << YAML::Value << spec.dataset.train_limit;
  out << YAML::Key << "test_limit" << YAML::Value << spec.dataset.test_limit;
  out << YAML::EndMap;

  const TrainingSpec& t = spec.training;
  out << YAML::Key << "training" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "epochs" << YAML::Value << t.epochs;
  out << YAML::Key << "batch_size" << YAML::Value << t.batch_size;
  out << YAML::Key << "seed" << YAML::Value << t.seed;
  out << YAML::Key << "shuffle" << YAML::Value << t.shuffle;
  out << YAML::Key << "threads" << YAML::Value << t.threads;
  out << YAML::Key << "optimizer" << YAML::Value;
  emit_optimizer(out, t.optimizer);
  out << YAML::EndMap;

  // The accelerator is inlined in full, so the resolved file does not depend on the preset
  // files staying as they are.
  const SimulationSpec& sim = spec.sim;
  out << YAML::Key << "accelerator" << YAML::Value;
  emit_accelerator(out, sim.accelerator);
  out << YAML::Key << "dataflow" << YAML::Value;
  emit_string(out, sim.dataflow);
  out << YAML::Key << "technique" << YAML::Value;
  emit_technique(out, sim.technique);
  out << YAML::Key << "fidelity" << YAML::Value;
  emit_string(out, sim.fidelity);
  out << YAML::Key << "memory" << YAML::Value;
  emit_string(out, sim.accelerator.memory);
  out << YAML::Key << "residency" << YAML::Value << sim.residency;
  out << YAML::Key << "numerics" << YAML::Value;
  emit_string(out, spec.numerics);
  if (spec.hype) {
    // As written: its devices are named presets or files, its figures the user's.
    out << YAML::Key << "hype" << YAML::Value << spec.hype->raw;
  }
  if (spec.system.present() && spec.system.implied_by.empty()) {
    out << YAML::Key << "system" << YAML::Value;
    emit_system(out, spec.system, !spec.hype);
    if (!spec.hype) {
      out << YAML::Key << "pipeline" << YAML::Value;
      emit_pipeline(out, spec.pipeline);
    }
  }

  out << YAML::Key << "output" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "dir" << YAML::Value;
  emit_string(out, spec.output.dir);
  out << YAML::EndMap;
  out << YAML::EndMap;
  return std::string(out.c_str()) + "\n";
}

}  // namespace trainsim
