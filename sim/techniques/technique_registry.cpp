#include "sim/techniques/technique.h"

namespace trainsim {

const std::vector<TechniqueInfo>& techniques() {
  static const std::vector<TechniqueInfo> all = {
      {"bp",
       "plain backpropagation: forward, loss, backward-data and backward-weight of every "
       "layer, then the update"},
  };
  return all;
}

const TechniqueInfo* find_technique(const std::string& name) {
  for (const auto& t : techniques())
    if (t.name == name) return &t;
  return nullptr;
}

}  // namespace trainsim
