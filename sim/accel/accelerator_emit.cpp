// accelerator_yaml(): the fully defaulted accelerator with its energy table inlined, in a
// fixed key order so equal specs give byte-identical text.
#include <yaml-cpp/yaml.h>

#include "sim/accel/accelerator_config.h"
#include "sim/accel/accelerator_parse.h"
#include "sim/accel/energy_config.h"
#include "sim/yaml/yaml_emit.h"

namespace trainsim {

void emit_accelerator(YAML::Emitter& out, const AcceleratorSpec& a) {
  out << YAML::BeginMap;
  out << YAML::Key << Plain{"name"} << YAML::Value;
  emit_string(out, a.name);
  out << YAML::Key << Plain{"description"} << YAML::Value;
  emit_string(out, a.description);
  out << YAML::Key << Plain{"dataflow"} << YAML::Value;
  emit_string(out, a.dataflow);
  out << YAML::Key << Plain{"memory"} << YAML::Value;
  emit_string(out, a.memory);
  out << YAML::Key << Plain{"array"} << YAML::Value << YAML::Flow << YAML::BeginMap;
  out << YAML::Key << Plain{"rows"} << YAML::Value << a.rows;
  out << YAML::Key << Plain{"cols"} << YAML::Value << a.cols;
  if (a.chain_psums) out << YAML::Key << Plain{"chain_psums"} << YAML::Value << true;
  out << YAML::EndMap;
  out << YAML::Key << Plain{"clock_ghz"} << YAML::Value;
  emit_double(out, a.clock_ghz);
  out << YAML::Key << Plain{"word_bits"} << YAML::Value << a.word_bits;

  out << YAML::Key << Plain{"rf"} << YAML::Value << YAML::Flow << YAML::BeginMap;
  out << YAML::Key << Plain{"input_words"} << YAML::Value << a.rf.input_words;
  out << YAML::Key << Plain{"weight_words"} << YAML::Value << a.rf.weight_words;
  out << YAML::Key << Plain{"psum_words"} << YAML::Value << a.rf.psum_words;
  // Only when set, as the accumulator: its absence is the default.
  if (a.rf.keep_psums) out << YAML::Key << Plain{"keep_psums"} << YAML::Value << true;
  out << YAML::EndMap;

  out << YAML::Key << Plain{"buffer"} << YAML::Value << YAML::Flow << YAML::BeginMap;
  if (a.buffer.shared) {
    out << YAML::Key << Plain{"kib"} << YAML::Value;
    emit_double(out, a.buffer.kib);
  } else {
    out << YAML::Key << Plain{"ifmap_kib"} << YAML::Value;
    emit_double(out, a.buffer.ifmap_kib);
    out << YAML::Key << Plain{"filter_kib"} << YAML::Value;
    emit_double(out, a.buffer.filter_kib);
    out << YAML::Key << Plain{"ofmap_kib"} << YAML::Value;
    emit_double(out, a.buffer.ofmap_kib);
  }
  out << YAML::Key << Plain{"double_buffer"} << YAML::Value << a.buffer.double_buffer;
  out << YAML::Key << Plain{"banks"} << YAML::Value << a.buffer.banks;
  out << YAML::Key << Plain{"words_per_cycle"} << YAML::Value << a.buffer.words_per_cycle;
  out << YAML::Key << Plain{"port_words_per_cycle"} << YAML::Value;
  emit_double(out, a.buffer.port_words_per_cycle);
  out << YAML::EndMap;

  // Only when there is one: its absence is the default, and files written before it existed
  // read back the same.
  if (a.accumulator.words > 0) {
    out << YAML::Key << Plain{"accumulator"} << YAML::Value << YAML::Flow << YAML::BeginMap;
    out << YAML::Key << Plain{"words"} << YAML::Value << a.accumulator.words;
    if (a.accumulator.bits > 0)
      out << YAML::Key << Plain{"bits"} << YAML::Value << a.accumulator.bits;
    out << YAML::EndMap;
  }

  out << YAML::Key << Plain{"mapping"} << YAML::Value << YAML::Flow << YAML::BeginMap;
  out << YAML::Key << Plain{"tile"} << YAML::Value << YAML::Flow << YAML::BeginMap;
  static const char* const dims[] = {"N", "K", "C", "P", "Q", "R", "S"};
  for (int d = 0; d < 7; ++d)
    if (a.mapping.tile[static_cast<std::size_t>(d)] > 0)
      out << YAML::Key << Plain{dims[d]} << YAML::Value
          << a.mapping.tile[static_cast<std::size_t>(d)];
  out << YAML::EndMap;
  static const char* const stationary[] = {"any", "ifmap", "filter", "ofmap"};
  out << YAML::Key << Plain{"stationary"} << YAML::Value << stationary[a.mapping.stationary + 1];
  out << YAML::Key << Plain{"objective"} << YAML::Value << objective_name(a.mapping.objective);
  out << YAML::EndMap;

  out << YAML::Key << Plain{"noc"} << YAML::Value << YAML::Flow << YAML::BeginMap;
  out << YAML::Key << Plain{"words_per_cycle"} << YAML::Value << a.noc_words_per_cycle;
  out << YAML::EndMap;

  out << YAML::Key << Plain{"dram"} << YAML::Value << YAML::Flow << YAML::BeginMap;
  out << YAML::Key << Plain{"bandwidth_gbps"} << YAML::Value;
  emit_double(out, a.dram.bandwidth_gbps);
  out << YAML::Key << Plain{"latency_cycles"} << YAML::Value << a.dram.latency_cycles;
  out << YAML::EndMap;

  out << YAML::Key << Plain{"vector_unit"} << YAML::Value << YAML::Flow << YAML::BeginMap;
  out << YAML::Key << Plain{"lanes"} << YAML::Value << a.vector_lanes;
  out << YAML::EndMap;

  out << YAML::Key << Plain{"energy"} << YAML::Value;
  emit_energy_table(out, a.energy);
  out << YAML::EndMap;
}

std::string accelerator_yaml(const AcceleratorSpec& a) {
  YAML::Emitter out;
  emit_accelerator(out, a);
  return std::string(out.c_str()) + "\n";
}

}  // namespace trainsim
