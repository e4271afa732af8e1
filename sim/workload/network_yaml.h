#pragma once
// A network as a network file holds it: what a resolved experiment writes under `network:`
// and what `trainsim import` writes, which parse_network() reads back to the same spec.
#include <yaml-cpp/yaml.h>

#include <string>

#include "sim/spec/specs.h"

namespace trainsim {

/// Writes `net` as a mapping (name, description, input, classes, init, layers).
void emit_network(YAML::Emitter& out, const NetworkSpec& net);

/// The same as text, a network file of its own.
std::string network_yaml(const NetworkSpec& net);

}  // namespace trainsim
