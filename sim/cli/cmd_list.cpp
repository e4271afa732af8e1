// `trainsim list`: what trainsim knows, from the registries (nothing here is hard-coded).
#include <algorithm>
#include <cstdio>

#include "dataflows/registry.h"
#include "sim/cli/commands.h"
#include "sim/config/accelerator_config.h"
#include "sim/config/experiment_config.h"
#include "sim/core/error.h"
#include "sim/data/dataset_registry.h"
#include "sim/nn/layer_registry.h"
#include "sim/optim/optimizer_registry.h"
#include "sim/techniques/technique.h"

namespace trainsim {

namespace {
std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s.empty() ? "-" : s;
}
}  // namespace

int cmd_list(const std::vector<std::string>& args) {
  if (args.size() > 1) throw UserError("list: expected at most one category");
  const std::string what = args.empty() ? "all" : args[0];
  const bool all = what == "all";
  const std::vector<std::string> categories = {"networks",  "datasets",     "optimizers",
                                               "layers",    "accelerators", "energy",
                                               "dataflows", "techniques"};
  if (!all && std::find(categories.begin(), categories.end(), what) == categories.end())
    throw UserError("list: unknown category '" + what + "' (expected " + join(categories) + ")");
  if (all || what == "networks") {
    std::printf("networks (configs/networks):\n");
    for (const auto& n : shipped_network_names()) std::printf("  %s\n", n.c_str());
  }
  if (all || what == "datasets") {
    std::printf("datasets:\n");
    for (const auto* d : dataset_sources())
      std::printf("  %-14s %s\n", d->name().c_str(), d->description().c_str());
  }
  if (all || what == "optimizers") {
    std::printf("optimizers:\n");
    for (const auto& o : optimizers())
      std::printf("  %-14s %s; keys: %s\n", o.name.c_str(), o.description.c_str(),
                  join(o.keys).c_str());
  }
  if (all || what == "layers") {
    std::printf("layer types:\n");
    for (const auto& l : layer_types())
      std::printf("  %-14s %s; keys: %s\n", l.name.c_str(), l.description.c_str(),
                  join(l.keys).c_str());
  }
  if (all || what == "accelerators") {
    std::printf("accelerators (configs/accelerators):\n");
    for (const auto& n : shipped_accelerator_names()) std::printf("  %s\n", n.c_str());
  }
  if (all || what == "energy") {
    std::printf("energy tables (configs/energy):\n");
    for (const auto& n : shipped_energy_names()) std::printf("  %s\n", n.c_str());
  }
  if (all || what == "dataflows") {
    std::printf("dataflows:\n");
    for (const Dataflow* d : dataflows())
      std::printf("  %-14s %s\n", d->name().c_str(), d->description().c_str());
  }
  if (all || what == "techniques") {
    std::printf("techniques:\n");
    for (const auto& t : techniques())
      std::printf("  %-14s %s\n", t.name.c_str(), t.description.c_str());
  }
  return 0;
}

}  // namespace trainsim
