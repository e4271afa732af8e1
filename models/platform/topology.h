#pragma once
// How a system's devices are joined (`system.topology`), one entry per kind, listed by
// `trainsim list topologies`. Each builds the link graph for n devices from one link's
// figures; `custom` takes the links the config lists.
#include <string>
#include <vector>

#include "sim/spec/system_spec.h"

namespace trainsim {

struct Topology {
  std::string name;
  std::string description;
  /// The links for `devices` devices, each with `link`'s figures; nullptr for `custom`.
  InterconnectSpec (*build)(int devices, const LinkSpec& link) = nullptr;
};

const std::vector<Topology>& topologies();
/// The topology called `name`, or nullptr.
const Topology* find_topology(const std::string& name);

}  // namespace trainsim
