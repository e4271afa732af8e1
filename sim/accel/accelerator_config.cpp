// load_accelerator() and load_energy_table(): YAML file -> overrides -> validated specs.
#include "sim/accel/accelerator_config.h"

#include <memory>
#include <optional>

#include "sim/accel/accel_lookup.h"
#include "sim/accel/accelerator_parse.h"
#include "sim/accel/energy_config.h"
#include "sim/accel/memory_model.h"
#include "sim/core/error.h"
#include "sim/core/named_registry.h"
#include "sim/yaml/config_files.h"
#include "sim/yaml/key_ranges.h"
#include "sim/yaml/overrides.h"
#include "sim/yaml/yaml_file.h"
#include "sim/yaml/yaml_reader.h"

namespace trainsim {

namespace {

// The table an accelerator gets when it names none.
constexpr const char* kDefaultEnergy = "horowitz45";

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : ", ") + s;
  return out;
}

// The energy file `ref` names for the accelerator read from `path`, or a UserError: at
// `node` when the accelerator names the table, at the accelerator's root when it is the
// default.
std::string resolve_energy_file(const std::string& ref, const std::string& path,
                                const std::optional<ConfigNode>& node, const ConfigNode& root) {
  std::vector<std::string> tried;
  if (auto found = find_energy_file(ref, path, &tried)) return *found;
  std::string what = is_config_path(ref) ? "energy file '" + ref + "' not found (tried "
                     : node              ? "unknown energy table '" + ref + "' (tried "
                            : "the default energy table '" + ref + "' was not found (tried ";
  what += join(tried) + ")";
  if (!is_config_path(ref)) {
    std::vector<std::string> shipped = shipped_energy_names();
    if (!shipped.empty()) what += "; shipped energy tables: " + join(shipped);
  }
  if (node) node->fail(what);
  config_fail(*root.origin(), root.child_path("energy"), root.mark(), what);
}

// Applies --set overrides. An `energy.<...>` override needs the table as a tree to descend
// into, so a table given by name or path (or the default one) is first inlined;
// `inlined_from` then remembers its file, whose lines the inlined nodes still carry.
void apply_overrides(YAML::Node root, const std::vector<std::string>& overrides,
                     const std::string& path, ConfigOrigin& origin,
                     std::optional<std::string>& inlined_from) {
  for (const auto& text : overrides) {
    Override o = parse_override(text);
    if (!root.IsMap()) {
      throw UserError("--set " + text + ": " + path + " is not a mapping of keys");
    }
    ConfigNode top(root, "", std::make_shared<const ConfigOrigin>(origin));
    if (auto file = inline_energy_for_override(root, o.segments, top, path)) {
      inlined_from = file;
      origin.overridden.erase("energy");  // the value now is the file's content
    }
    std::string key_path = apply_override(root, o);
    if (key_path == "energy") inlined_from.reset();  // kind-name ok: the accelerator's key
    origin.overridden.insert(key_path);
  }
}

// An accelerator's energy table, and the node to blame if it lacks a MAC entry wide
// enough for the accelerator's words (nullopt: the default table, blame the root).
struct EnergyRef {
  EnergyTable table;
  std::optional<ConfigNode> blame;
};

EnergyRef parse_accelerator_energy(const std::optional<ConfigNode>& node, const ConfigNode& root,
                                   const std::string& path,
                                   const std::optional<std::string>& inlined_from) {
  if (inlined_from) {
    // Inlined for overrides: lines point into the energy file, paths into the accelerator.
    auto origin = std::make_shared<ConfigOrigin>(*node->origin());
    origin->file = *inlined_from;
    ConfigNode table(node->yaml(), node->path(), origin, node->key_mark());
    EnergyTable t = parse_energy_table(table, config_file_stem(*inlined_from), *inlined_from);
    return {t, table.as_map().get("mac")};
  }
  if (node && node->is_map()) {
    return {parse_energy_table(*node, "inline", "<inline>"), node->as_map().get("mac")};
  }
  if (node && !node->is_scalar()) {
    node->fail("expected an energy table name, a path to an energy file or a mapping, got " +
               node->describe());
  }
  std::string ref = node ? node->as_nonempty_string() : kDefaultEnergy;
  std::string file = resolve_energy_file(ref, path, node, root);
  return {parse_energy_file(file, root.child_path("energy")), node};
}

// `word_bits`: the widths the energy tables and SCALE-Sim-style word counts deal in.
int parse_word_bits(const ConfigNode& node) {
  int bits = node.as_int();
  for (int ok : {4, 8, 16, 32, 64}) {
    if (bits == ok) return bits;
  }
  node.fail("must be one of 4, 8, 16, 32, 64, got " + node.yaml().Scalar());
}

void parse_rf(const ConfigNode& node, AcceleratorSpec& a) {
  ConfigMap m = node.as_map();
  m.allow_only({"input_words", "weight_words", "psum_words", "keep_psums"});
  if (auto v = m.get("input_words")) a.rf.input_words = v->as_int64_in(key_range::kRfWords);
  if (auto v = m.get("weight_words")) a.rf.weight_words = v->as_int64_in(key_range::kRfWords);
  if (auto v = m.get("psum_words")) a.rf.psum_words = v->as_int64_in(key_range::kRfWords);
  if (auto v = m.get("keep_psums")) a.rf.keep_psums = v->as_bool();
}

void parse_accumulator(const ConfigNode& node, AcceleratorSpec& a) {
  ConfigMap m = node.as_map();
  m.allow_only({"words", "bits"});
  a.accumulator.words = m.require("words").as_int64_in(key_range::kAccumulatorWords);
  if (auto v = m.get("bits")) a.accumulator.bits = parse_word_bits(*v);
}

void parse_buffer(const ConfigNode& node, AcceleratorSpec& a) {
  ConfigMap m = node.as_map();
  m.allow_only({"kib", "ifmap_kib", "filter_kib", "ofmap_kib", "double_buffer", "banks",
                "words_per_cycle", "port_words_per_cycle"});
  // Either one SRAM shared by every operand or one partition per operand: both at once
  // would leave it unclear which the mapping may use.
  if (auto v = m.get("kib")) {
    for (const char* key : {"ifmap_kib", "filter_kib", "ofmap_kib"})
      if (auto part = m.get(key))
        part->fail(std::string("a buffer is either shared (`kib`) or partitioned (`") + key +
                   "` and the other *_kib keys), not both");
    a.buffer.shared = true;
    a.buffer.kib = v->as_double_in(key_range::kBufferKib);
  }
  if (auto v = m.get("ifmap_kib")) a.buffer.ifmap_kib = v->as_double_in(key_range::kBufferKib);
  if (auto v = m.get("filter_kib")) a.buffer.filter_kib = v->as_double_in(key_range::kBufferKib);
  if (auto v = m.get("ofmap_kib")) a.buffer.ofmap_kib = v->as_double_in(key_range::kBufferKib);
  if (auto v = m.get("double_buffer")) a.buffer.double_buffer = v->as_bool();
  if (auto v = m.get("banks")) a.buffer.banks = v->as_int_in(key_range::kBanks);
  if (auto v = m.get("words_per_cycle"))
    a.buffer.words_per_cycle = v->as_int_in(key_range::kPerCycle);
  if (auto v = m.get("port_words_per_cycle"))
    a.buffer.port_words_per_cycle = v->as_double_in(key_range::kPortWords);
}

void parse_dram(const ConfigNode& node, AcceleratorSpec& a) {
  ConfigMap m = node.as_map();
  m.allow_only({"bandwidth_gbps", "latency_cycles"});
  if (auto v = m.get("bandwidth_gbps"))
    a.dram.bandwidth_gbps = v->as_double_in(key_range::kBandwidthGbps);
  if (auto v = m.get("latency_cycles"))
    a.dram.latency_cycles = v->as_int64_in(key_range::kLatencyCycles);
}

// `mapping:` constraints on the buffer mapping of every op (tiled memory model).
void parse_mapping(const ConfigNode& node, AcceleratorSpec& a) {
  ConfigMap m = node.as_map();
  m.allow_only({"tile", "stationary", "objective"});
  if (auto t = m.get("tile")) {
    ConfigMap tiles = t->as_map();
    static const char* const dims[] = {"N", "K", "C", "P", "Q", "R", "S"};
    tiles.allow_only(std::vector<std::string>(dims, dims + 7));
    for (int d = 0; d < 7; ++d)
      if (auto v = tiles.get(dims[d]))
        a.mapping.tile[static_cast<std::size_t>(d)] = v->as_int64_in(key_range::kExtent);
  }
  if (auto v = m.get("stationary")) {
    const std::string s = v->as_choice({"any", "ifmap", "filter", "ofmap"});
    a.mapping.stationary = s == "ifmap" ? 0 : s == "filter" ? 1 : s == "ofmap" ? 2 : -1;
  }
  if (auto v = m.get("objective")) {
    const std::string s = v->as_choice({"time", "energy", "edp"});
    // kind-name ok: mapping.objective's values, one of which shares a Hype policy's name
    a.mapping.objective = s == "time"     ? MappingObjective::kTime
                          : s == "energy" ? MappingObjective::kEnergy  // kind-name ok: as above
                                          : MappingObjective::kEdp;
  }
}

// Reads the single key `key` (optional) of the mapping at `node`, a count per cycle.
void parse_single_count(const ConfigNode& node, const char* key, int& out) {
  ConfigMap m = node.as_map();
  m.allow_only({key});
  if (auto v = m.get(key)) out = v->as_int_in(key_range::kPerCycle);
}

}  // namespace

std::string parse_memory_model(const ConfigNode& node) {
  std::string name = node.as_nonempty_string();
  if (find_memory_model(name) == nullptr)
    node.fail("unknown memory model '" + name + "' (known: " + registry_names(memory_models()) +
              ")");
  return name;
}

AcceleratorSpec parse_accelerator_node(const ConfigNode& top, const AcceleratorNodeSource& from) {
  ConfigMap m = top.as_map();
  m.allow_only({"name", "description", "dataflow", "memory", "array", "clock_ghz", "word_bits",
                "rf", "buffer", "accumulator", "mapping", "noc", "dram", "vector_unit", "energy"});
  AcceleratorSpec a;
  a.source = from.source;
  a.name = from.default_name;
  if (auto v = m.get("name")) a.name = v->as_nonempty_string();
  if (auto v = m.get("description")) a.description = v->as_string();
  // Whether the simulator implements the dataflow is the dataflow registry's call.
  a.dataflow = m.require("dataflow").as_choice({"ws", "os", "is", "rs"});
  ConfigMap array = m.require("array").as_map();
  array.allow_only({"rows", "cols", "chain_psums"});
  a.rows = array.require("rows").as_int_in(key_range::kArrayExtent);
  a.cols = array.require("cols").as_int_in(key_range::kArrayExtent);
  if (auto v = array.get("chain_psums")) a.chain_psums = v->as_bool();
  if (auto v = m.get("clock_ghz")) a.clock_ghz = v->as_double_in(key_range::kClockGhz);
  if (auto v = m.get("word_bits")) a.word_bits = parse_word_bits(*v);
  if (auto v = m.get("rf")) parse_rf(*v, a);
  if (auto v = m.get("buffer")) parse_buffer(*v, a);
  if (auto v = m.get("accumulator")) parse_accumulator(*v, a);
  if (auto v = m.get("mapping")) parse_mapping(*v, a);
  if (auto v = m.get("memory")) a.memory = parse_memory_model(*v);
  if (auto v = m.get("noc")) parse_single_count(*v, "words_per_cycle", a.noc_words_per_cycle);
  if (auto v = m.get("dram")) parse_dram(*v, a);
  if (auto v = m.get("vector_unit")) parse_single_count(*v, "lanes", a.vector_lanes);

  EnergyRef energy =
      parse_accelerator_energy(m.get("energy"), top, from.file, from.energy_inlined_from);
  a.energy = energy.table;
  if (!has_mac_energy(a.energy, a.word_bits)) {
    std::string what = "energy table '" + a.energy.name + "' has no MAC energy for " +
                       std::to_string(a.word_bits) +
                       "-bit words (widest entry: " + std::to_string(a.energy.mac.back().first) +
                       "-bit)";
    if (energy.blame) energy.blame->fail(what);
    config_fail(*top.origin(), top.child_path("energy"), top.mark(), what);
  }
  return a;
}

AcceleratorSpec parse_accelerator_ref(const ConfigNode& node, const std::string& referrer) {
  if (node.is_map()) {
    return parse_accelerator_node(node, {referrer, config_file_stem(referrer), "<inline>", {}});
  }
  const std::string ref = node.as_nonempty_string();
  std::vector<std::string> tried;
  auto file = find_referenced_file(ref, "accelerators", referrer, &tried);
  if (!file) {
    node.fail("unknown accelerator '" + ref + "' (tried " + join(tried) +
              "); shipped accelerators: " + join(shipped_config_names("accelerators")));
  }
  auto origin = std::make_shared<ConfigOrigin>();
  origin->file = *file;
  ConfigNode accel(load_yaml_file(*file, "accelerator"), node.path(), origin);
  return parse_accelerator_node(accel, {*file, config_file_stem(*file), *file, {}});
}

std::optional<std::string> inline_energy_for_override(YAML::Node accel,
                                                      const std::vector<std::string>& segments,
                                                      const ConfigNode& at,
                                                      const std::string& file) {
  if (segments.size() < 2 || segments[0] != "energy")  // kind-name ok: the accelerator's key
    return std::nullopt;
  // Anything but a mapping (or nothing) is left to apply_override, which names the problem.
  if (!accel.IsMap() && !accel.IsNull()) return std::nullopt;
  const YAML::Node& const_accel = accel;
  YAML::Node energy = const_accel["energy"];
  const bool named = !energy.IsDefined() || energy.IsNull() || energy.IsScalar();
  if (!named) return std::nullopt;
  std::optional<ConfigNode> ref;
  if (energy.IsDefined() && !energy.IsNull()) {
    ref = ConfigNode(energy, at.child_path("energy"), at.origin());
  }
  std::string table =
      resolve_energy_file(ref ? ref->as_nonempty_string() : kDefaultEnergy, file, ref, at);
  accel["energy"] = load_yaml_file(table, "energy table");
  return table;
}

AcceleratorSpec load_accelerator(const std::string& name_or_path,
                                 const std::vector<std::string>& overrides) {
  std::string path = find_accelerator_file(name_or_path);
  YAML::Node root = load_yaml_file(path, "accelerator");
  // An empty file is a null node without storage; overrides need a mapping to write into.
  if (!overrides.empty() && (!root.IsDefined() || root.IsNull())) {
    root = YAML::Node(YAML::NodeType::Map);
  }
  ConfigOrigin origin;
  origin.file = path;
  std::optional<std::string> inlined_from;
  apply_overrides(root, overrides, path, origin, inlined_from);
  ConfigNode top(root, "", std::make_shared<const ConfigOrigin>(origin));
  return parse_accelerator_node(top, {path, config_file_stem(path), path, inlined_from});
}

EnergyTable load_energy_table(const std::string& name_or_path) {
  return parse_energy_file(find_energy_table_file(name_or_path), "");
}

}  // namespace trainsim
