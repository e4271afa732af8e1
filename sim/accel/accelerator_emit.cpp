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
  out << YAML::Key << "name" << YAML::Value;
  emit_string(out, a.name);
  out << YAML::Key << "description" << YAML::Value;
  emit_string(out, a.description);
  out << YAML::Key << "dataflow" << YAML::Value;
  emit_string(out, a.dataflow);
  out << YAML::Key << "memory" << YAML::Value;
  emit_string(out, a.memory);
  out << YAML::Key << "array" << YAML::Value << YAML::Flow << YAML::BeginMap;
  out << YAML::Key << "rows" << YAML::Value << a.rows;
  out << YAML::Key << "cols" << YAML::Value << a.cols;
  if (a.chain_psums) out << YAML::Key << "chain_psums" << YAML::Value << true;
  out << YAML::EndMap;
  out << YAML::Key << "clock_ghz" << YAML::Value;
  emit_double(out, a.clock_ghz);
  out << YAML::Key << "word_bits" << YAML::Value << a.word_bits;

  out << YAML::Key << "rf" << YAML::Value << YAML::Flow << YAML::BeginMap;
  out << YAML::Key << "input_words" << YAML::Value << a.rf.input_words;
  out << YAML::Key << "weight_words" << YAML::Value << a.rf.weight_words;
  out << YAML::Key << "psum_words" << YAML::Value << a.rf.psum_words;
  // Only when set, as the accumulator: its absence is the default.
  if (a.rf.keep_psums) out << YAML::Key << "keep_psums" << YAML::Value << true;
  out << YAML::EndMap;

  out << YAML::Key << "buffer" << YAML::Value << YAML::Flow << YAML::BeginMap;
  if (a.buffer.shared) {
    out << YAML::Key << "kib" << YAML::Value;
    emit_double(out, a.buffer.kib);
  } else {
    out << YAML::Key << "ifmap_kib" << YAML::Value;
    emit_double(out, a.buffer.ifmap_kib);
    out << YAML::Key << "filter_kib" << YAML::Value;
    emit_double(out, a.buffer.filter_kib);
    out << YAML::Key << "ofmap_kib" << YAML::Value;
    emit_double(out, a.buffer.ofmap_kib);
  }
  out << YAML::Key << "double_buffer" << YAML::Value << a.buffer.double_buffer;
  out << YAML::Key << "banks" << YAML::Value << a.buffer.banks;
  out << YAML::Key << "words_per_cycle" << YAML::Value << a.buffer.words_per_cycle;
  out << YAML::Key << "port_words_per_cycle" << YAML::Value;
  emit_double(out, a.buffer.port_words_per_cycle);
  out << YAML::EndMap;

  // Only when there is one: its absence is the default, and files written before it existed
  // read back the same.
  if (a.accumulator.words > 0) {
    out << YAML::Key << "accumulator" << YAML::Value << YAML::Flow << YAML::BeginMap;
    out << YAML::Key << "words" << YAML::Value << a.accumulator.words;
    if (a.accumulator.bits > 0) out << YAML::Key << "bits" << YAML::Value << a.accumulator.bits;
    out << YAML::EndMap;
  }

  out << YAML::Key << "mapping" << YAML::Value << YAML::Flow << YAML::BeginMap;
  out << YAML::Key << "tile" << YAML::Value << YAML::Flow << YAML::BeginMap;
  static const char* const dims[] = {"N", "K", "C", "P", "Q", "R", "S"};
  for (int d = 0; d < 7; ++d)
    if (a.mapping.tile[static_cast<std::size_t>(d)] > 0)
      out << YAML::Key << dims[d] << YAML::Value << a.mapping.tile[static_cast<std::size_t>(d)];
  out << YAML::EndMap;
  static const char* const stationary[] = {"any", "ifmap", "filter", "ofmap"};
  out << YAML::Key << "stationary" << YAML::Value << stationary[a.mapping.stationary + 1];
  out << YAML::Key << "objective" << YAML::Value << objective_name(a.mapping.objective);
  out << YAML::EndMap;

  out << YAML::Key << "noc" << YAML::Value << YAML::Flow << YAML::BeginMap;
  out << YAML::Key << "words_per_cycle" << YAML::Value << a.noc_words_per_cycle;
  out << YAML::EndMap;

  out << YAML::Key << "dram" << YAML::Value << YAML::Flow << YAML::BeginMap;
  out << YAML::Key << "bandwidth_gbps" << YAML::Value;
  emit_double(out, a.dram.bandwidth_gbps);
  out << YAML::Key << "latency_cycles" << YAML::Value << a.dram.latency_cycles;
  out << YAML::EndMap;

  out << YAML::Key << "vector_unit" << YAML::Value << YAML::Flow << YAML::BeginMap;
  out << YAML::Key << "lanes" << YAML::Value << a.vector_lanes;
  out << YAML::EndMap;

  out << YAML::Key << "energy" << YAML::Value;
  emit_energy_table(out, a.energy);
  out << YAML::EndMap;
}

std::string accelerator_yaml(const AcceleratorSpec& a) {
  YAML::Emitter out;
  emit_accelerator(out, a);
  return std::string(out.c_str()) + "\n";
}

}  // namespace trainsim
