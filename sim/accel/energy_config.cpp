// parse_energy_table(): one energy table, every entry required except name, unit, leakage.
// Per-access entries carry their own `per_bits` because the sources quote them at different
// widths (Horowitz: 64-bit SRAM/DRAM accesses; Eyeriss: 16-bit words); defaulting it would
// silently scale an entry by 4x.
#include "sim/accel/energy_config.h"

#include <memory>
#include <vector>

#include "sim/interop/accelergy_ert.h"
#include "sim/yaml/config_files.h"
#include "sim/yaml/key_ranges.h"
#include "sim/yaml/parsed_files.h"
#include "sim/yaml/yaml_emit.h"
#include "sim/yaml/yaml_file.h"

namespace trainsim {

namespace {

// `pj` and `per_bits` from a mapping whose keys were already checked.
EnergyCost read_cost(const ConfigMap& m) {
  EnergyCost c;
  c.pj = m.require("pj").as_double_non_negative();
  c.per_bits = m.require("per_bits").as_int_in(key_range::kBits);
  return c;
}

EnergyCost parse_cost(const ConfigNode& node) {
  ConfigMap m = node.as_map();
  m.allow_only({"pj", "per_bits"});
  return read_cost(m);
}

void parse_read_write(const ConfigNode& node, EnergyCost& read, EnergyCost& write) {
  ConfigMap m = node.as_map();
  m.allow_only({"read", "write"});
  read = parse_cost(m.require("read"));
  write = parse_cost(m.require("write"));
}

// {8: 0.23, 16: 1.5}: operand width -> pJ per MAC. Widths must increase in the file so
// the table reads the way it is used (smallest width >= the word width wins).
std::vector<std::pair<int, double>> parse_mac(const ConfigNode& node) {
  ConfigMap checked = node.as_map();  // rejects non-mappings and duplicate widths
  (void)checked;
  std::vector<std::pair<int, double>> mac;
  for (const auto& kv : node.yaml()) {
    const YAML::Node& key = kv.first;
    std::string path = node.child_path(key.Scalar());
    int bits = ConfigNode(key, path, node.origin()).as_int_in(key_range::kBits);
    if (!mac.empty() && bits <= mac.back().first) {
      ConfigNode(key, path, node.origin())
          .fail("operand widths must increase, got " + std::to_string(bits) + " after " +
                std::to_string(mac.back().first));
    }
    ConfigNode value(kv.second, path, node.origin(), key.Mark());
    mac.emplace_back(bits, value.as_double_non_negative());
  }
  if (mac.empty()) node.fail("must give at least one operand width, e.g. {16: 1.5}");
  return mac;
}

// [{kib: 8, pj: 10, per_bits: 64}, ...]: buffer size -> access energy, sizes increasing
// because the table is interpolated on the partition size.
std::vector<std::pair<double, EnergyCost>> parse_buffer_table(const ConfigNode& node) {
  std::vector<std::pair<double, EnergyCost>> table;
  for (const auto& item : node.as_sequence()) {
    ConfigMap m = item.as_map();
    m.allow_only({"kib", "pj", "per_bits"});
    ConfigNode kib_node = m.require("kib");
    double kib = kib_node.as_double_positive();
    if (!table.empty() && !(kib > table.back().first)) {
      kib_node.fail("buffer sizes must increase, got " + format_double(kib) + " KiB after " +
                    format_double(table.back().first) + " KiB");
    }
    table.emplace_back(kib, read_cost(m));
  }
  if (table.empty()) {
    node.fail("must give at least one buffer size, e.g. [{kib: 64, pj: 25.9, per_bits: 64}]");
  }
  return table;
}

void emit_cost(YAML::Emitter& out, const EnergyCost& c) {
  out << YAML::Flow << YAML::BeginMap;
  out << YAML::Key << Plain{"pj"} << YAML::Value;
  emit_double(out, c.pj);
  out << YAML::Key << Plain{"per_bits"} << YAML::Value << c.per_bits;
  out << YAML::EndMap;
}

void emit_read_write(YAML::Emitter& out, const EnergyCost& read, const EnergyCost& write) {
  out << YAML::BeginMap;
  out << YAML::Key << Plain{"read"} << YAML::Value;
  emit_cost(out, read);
  out << YAML::Key << Plain{"write"} << YAML::Value;
  emit_cost(out, write);
  out << YAML::EndMap;
}

void emit_buffer_table(YAML::Emitter& out,
                       const std::vector<std::pair<double, EnergyCost>>& table) {
  out << YAML::BeginSeq;
  for (const auto& [kib, c] : table) {
    out << YAML::Flow << YAML::BeginMap;
    out << YAML::Key << Plain{"kib"} << YAML::Value;
    emit_double(out, kib);
    out << YAML::Key << Plain{"pj"} << YAML::Value;
    emit_double(out, c.pj);
    out << YAML::Key << Plain{"per_bits"} << YAML::Value << c.per_bits;
    out << YAML::EndMap;
  }
  out << YAML::EndSeq;
}

}  // namespace

EnergyTable parse_energy_table(const ConfigNode& node, const std::string& default_name,
                               const std::string& source) {
  ConfigMap m = node.as_map();
  // A table whose costs come from an Accelergy ERT (sim/interop/accelergy_ert.h).
  const bool ert = m.has("ert");
  if (ert)
    m.allow_only(kErtTableKeys);
  else
    m.allow_only({"name", "description", "unit", "mac", "rf", "noc", "buffer", "dram", "vector_op",
                  "leakage", "ert"});
  EnergyTable t;
  t.source = source;
  t.name = default_name;
  if (auto v = m.get("name")) t.name = v->as_nonempty_string();
  t.unit = "pJ";
  if (auto v = m.get("unit")) t.unit = v->as_choice({"pJ", "normalized"});
  if (auto v = m.get("description")) t.description = v->as_string();
  if (ert) {
    read_ert_costs(m, source, t);
  } else {
    t.mac = parse_mac(m.require("mac"));
    parse_read_write(m.require("rf"), t.rf_read, t.rf_write);
    t.noc = parse_cost(m.require("noc"));
    ConfigMap buffer = m.require("buffer").as_map();
    buffer.allow_only({"read", "write"});
    t.buffer_read = parse_buffer_table(buffer.require("read"));
    t.buffer_write = parse_buffer_table(buffer.require("write"));
    parse_read_write(m.require("dram"), t.dram_read, t.dram_write);
    t.vector_op = m.require("vector_op").as_double_non_negative();
  }
  // Leakage is optional: dynamic-only tables (Eyeriss' normalized one) have no figure.
  if (auto v = m.get("leakage")) {
    ConfigMap leak = v->as_map();
    leak.allow_only({"per_pe_ns", "per_kib_ns"});
    if (auto x = leak.get("per_pe_ns")) t.leakage_per_pe_ns = x->as_double_non_negative();
    if (auto x = leak.get("per_kib_ns")) {
      t.leakage_per_kib_ns = x->as_double_non_negative();
    }
  }
  return t;
}

EnergyTable parse_energy_file(const std::string& file, const std::string& path) {
  static ParsedFiles<EnergyTable> files;
  return files.get(file, "energy table", [&](const std::string& text, bool& keep) {
    auto origin = std::make_shared<ConfigOrigin>();
    origin->file = file;
    const ConfigNode top(parse_yaml_text(text, file), path, origin);
    EnergyTable t = parse_energy_table(top, config_file_stem(file), file);
    keep = !top.as_map().has("ert");  // an ERT's costs are read from another file
    return t;
  });
}

void emit_energy_table(YAML::Emitter& out, const EnergyTable& t) {
  out << YAML::BeginMap;
  out << YAML::Key << Plain{"name"} << YAML::Value;
  emit_string(out, t.name);
  if (!t.description.empty()) {
    out << YAML::Key << Plain{"description"} << YAML::Value;
    emit_string(out, t.description);
  }
  out << YAML::Key << Plain{"unit"} << YAML::Value;
  emit_string(out, t.unit);
  out << YAML::Key << Plain{"mac"} << YAML::Value << YAML::Flow << YAML::BeginMap;
  for (const auto& [bits, pj] : t.mac) {
    out << YAML::Key << bits << YAML::Value;
    emit_double(out, pj);
  }
  out << YAML::EndMap;
  out << YAML::Key << Plain{"rf"} << YAML::Value;
  emit_read_write(out, t.rf_read, t.rf_write);
  out << YAML::Key << Plain{"noc"} << YAML::Value;
  emit_cost(out, t.noc);
  out << YAML::Key << Plain{"buffer"} << YAML::Value << YAML::BeginMap;
  out << YAML::Key << Plain{"read"} << YAML::Value;
  emit_buffer_table(out, t.buffer_read);
  out << YAML::Key << Plain{"write"} << YAML::Value;
  emit_buffer_table(out, t.buffer_write);
  out << YAML::EndMap;
  out << YAML::Key << Plain{"dram"} << YAML::Value;
  emit_read_write(out, t.dram_read, t.dram_write);
  out << YAML::Key << Plain{"vector_op"} << YAML::Value;
  emit_double(out, t.vector_op);
  out << YAML::Key << Plain{"leakage"} << YAML::Value << YAML::Flow << YAML::BeginMap;
  out << YAML::Key << Plain{"per_pe_ns"} << YAML::Value;
  emit_double(out, t.leakage_per_pe_ns);
  out << YAML::Key << Plain{"per_kib_ns"} << YAML::Value;
  emit_double(out, t.leakage_per_kib_ns);
  out << YAML::EndMap;
  out << YAML::EndMap;
}

bool has_mac_energy(const EnergyTable& table, int word_bits) {
  return !table.mac.empty() && table.mac.back().first >= word_bits;
}

}  // namespace trainsim
