#include <cstdio>

#include "sim/config/specs.h"
#include "sim/techniques/technique.h"

namespace trainsim {

const std::vector<TechniqueInfo>& techniques() {
  static const std::vector<TechniqueInfo> all = {
      {"bp",
       "backpropagation over the batch: forward, loss, backward-data and backward-weight of "
       "every layer, then the update",
       {},
       ""},
      {"bp-sample",
       "backpropagation one sample at a time (batch-1 ops), gradients summed over the batch: "
       "the baseline of speculative backprop",
       {},
       ""},
      {"specbp",
       "speculative backpropagation (seed 000): a second unit backpropagates the stored forward "
       "pass of the previous same-label sample while the current forward pass runs; kept if "
       "the outputs differ by <= threshold, else a normal backward pass runs",
       {"threshold", "unit", "store"},
       "threshold"},
  };
  return all;
}

const TechniqueInfo* find_technique(const std::string& name) {
  for (const auto& t : techniques())
    if (t.name == name) return &t;
  return nullptr;
}

std::string TechniqueSpec::label() const {
  if (kind != "specbp") return kind;
  char buf[64];
  std::snprintf(buf, sizeof buf, "specbp@%g", threshold);
  return buf;
}

}  // namespace trainsim
