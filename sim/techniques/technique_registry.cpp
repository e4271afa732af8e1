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
       "speculative backpropagation (Purkayastha et al. 2025): a second unit backpropagates the "
       "stored forward "
       "pass of the previous same-label sample while the current forward pass runs; kept if "
       "the outputs differ by <= threshold, else a normal backward pass runs",
       {"threshold", "unit", "store"},
       "threshold"},
      {"adagp-max",
       "ADA-GP (Janfaza et al., MICRO '23) on its MAX hardware: an extra PE array and memory for "
       "the gradient "
       "predictor, which runs alongside the model's layers",
       {"warmup_epochs", "schedule", "predictor", "unit", "phase_gp"},
       "warmup_epochs"},
      {"adagp-efficient",
       "ADA-GP on its Efficient hardware: dedicated predictor-weight memory, the predictor runs "
       "on the main array after each layer",
       {"warmup_epochs", "schedule", "predictor", "phase_gp"},
       "warmup_epochs"},
      {"adagp-low",
       "ADA-GP on its LOW hardware: no extra hardware; the predictor's weights are loaded from "
       "DRAM after each layer and its results stored",
       {"warmup_epochs", "schedule", "predictor", "phase_gp"},
       "warmup_epochs"},
  };
  return all;
}

const TechniqueInfo* find_technique(const std::string& name) {
  for (const auto& t : techniques())
    if (t.name == name) return &t;
  return nullptr;
}

std::string TechniqueSpec::label() const {
  if (kind.rfind("adagp-", 0) == 0 && warmup_epochs != 1) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%s@%d", kind.c_str(), warmup_epochs);
    return buf;
  }
  if (kind != "specbp") return kind;
  char buf[64];
  std::snprintf(buf, sizeof buf, "specbp@%g", threshold);
  return buf;
}

}  // namespace trainsim
