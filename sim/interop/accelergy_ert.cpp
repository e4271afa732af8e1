#include "sim/interop/accelergy_ert.h"

#include <filesystem>
#include <map>
#include <memory>
#include <set>

#include "sim/yaml/key_ranges.h"
#include "sim/yaml/yaml_file.h"

namespace trainsim {

std::string ert_component_base(const std::string& name) {
  std::string out;
  int depth = 0;
  for (char c : name) {
    if (c == '[') ++depth;
    if (depth == 0) out += c;
    if (c == ']' && depth > 0) --depth;
  }
  return out;
}

namespace {

constexpr const char* kEntries[] = {"mac",       "rf_read",     "rf_write",
                                    "noc",       "buffer_read", "buffer_write",
                                    "dram_read", "dram_write",  "vector_op"};

// An action of an ERT component: its energy, and where it is listed (every listing, so that
// a mapped action listed twice is an error naming both).
struct ErtAction {
  double energy = 0;
  std::vector<ConfigNode> names;
};

}  // namespace

void read_ert_costs(const ConfigMap& m, const std::string& source, EnergyTable& t) {
  const int per_bits = m.require("per_bits").as_int_in(key_range::kBits);

  // The ERT file, relative to the table's own file.
  const ConfigNode ert_node = m.require("ert");
  std::filesystem::path ert = ert_node.as_nonempty_string();
  if (ert.is_relative() && !source.empty() && source.front() != '<')
    ert = std::filesystem::path(source).parent_path() / ert;
  auto origin = std::make_shared<ConfigOrigin>();
  origin->file = ert.string();
  ConfigNode top(load_yaml_file(ert.string(), "Accelergy ERT"), "", origin);
  ConfigMap root = top.as_map();
  ConfigMap body = root.require("ERT").as_map();
  std::map<std::string, std::map<std::string, ErtAction>> actions;  // component -> action
  std::map<std::string, ConfigNode> where;
  for (const ConfigNode& table : body.require("tables").as_sequence()) {
    ConfigMap tm = table.as_map();
    const std::string component = ert_component_base(tm.require("name").as_nonempty_string());
    where.emplace(component, table);
    for (const ConfigNode& a : tm.require("actions").as_sequence()) {
      ConfigMap am = a.as_map();
      const ConfigNode name = am.require("name");
      const std::string action = name.as_nonempty_string();
      const double e = am.require("energy").as_double_non_negative();
      auto [it, first] = actions[component].emplace(action, ErtAction{e, {}});
      it->second.names.push_back(name);
      (void)first;
    }
  }

  const ConfigNode map_node = m.require("map");
  ConfigMap map = map_node.as_map();
  std::vector<std::string> allowed(std::begin(kEntries), std::end(kEntries));
  map.allow_only(allowed);
  std::set<std::string> used;
  std::map<std::string, double> energy;
  for (const char* entry : kEntries) {
    const ConfigNode e = map.require(entry);
    ConfigMap em = e.as_map();
    em.allow_only({"component", "action"});
    const std::string component = ert_component_base(em.require("component").as_nonempty_string());
    const std::string action = em.require("action").as_nonempty_string();
    auto c = actions.find(component);
    if (c == actions.end())
      em.require("component")
          .fail("component '" + component + "' is not in the ERT " + ert.string());
    auto a = c->second.find(action);
    if (a == c->second.end()) {
      std::string known;
      for (const auto& [name, _] : c->second) known += (known.empty() ? "" : ", ") + name;
      em.require("action").fail("component '" + component + "' has no action '" + action +
                                "' in the ERT (it has: " + known + ")");
    }
    // trainsim has one cost per access. An action listed again (Accelergy writes one entry per
    // argument set) would leave the choice to the order of the file: refused, naming both.
    const std::vector<ConfigNode>& names = a->second.names;
    if (names.size() > 1)
      names[1].fail("component '" + component + "' lists action '" + action + "' " +
                    std::to_string(names.size()) + " times in the ERT " + ert.string() +
                    " (first at line " + std::to_string(names[0].mark().line + 1) + "), and '" +
                    entry +
                    "' maps to it: trainsim takes one energy per action, "
                    "keep the one to use");
    used.insert(component);
    energy[entry] = a->second.energy;
  }
  if (auto ignore = m.get("ignore"))
    for (const ConfigNode& i : ignore->as_sequence())
      used.insert(ert_component_base(i.as_nonempty_string()));
  for (const auto& [component, _] : actions)
    if (!used.count(component))
      where.at(component).fail("ERT component '" + component +
                               "' is not mapped to a trainsim cost (map it, or list it under "
                               "`ignore` in " +
                               source + ")");

  const EnergyCost word{0, per_bits};
  auto cost = [&](const char* entry) {
    EnergyCost c = word;
    c.pj = energy.at(entry);
    return c;
  };
  t.mac = {{per_bits, energy.at("mac")}};
  t.rf_read = cost("rf_read");
  t.rf_write = cost("rf_write");
  t.noc = cost("noc");
  // One size: the ERT prices the buffer it describes, whatever the partition size.
  t.buffer_read = {{1.0, cost("buffer_read")}};
  t.buffer_write = {{1.0, cost("buffer_write")}};
  t.dram_read = cost("dram_read");
  t.dram_write = cost("dram_write");
  t.vector_op = energy.at("vector_op");
}

}  // namespace trainsim
