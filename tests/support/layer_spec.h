#pragma once
// A layer spec of a type and a name, the rest default: what tests fill in field by field.
#include <string>

#include "sim/spec/specs.h"

namespace trainsim::test {

inline LayerSpec layer_spec(const std::string& type, const std::string& name) {
  LayerSpec l;
  l.type = type;
  l.name = name;
  return l;
}

}  // namespace trainsim::test
