#pragma once
// Speculative backpropagation's settings (`technique:` keys threshold and store; specbp.cpp
// parses and writes them).
#include <string>

#include "sim/spec/specs.h"

namespace trainsim {

struct SpecBpSettings final : SettingsOf<SpecBpSettings> {
  double threshold = 0.25;       ///< hit if mean |stored softmax - current softmax| <= threshold
  std::string store = "buffer";  ///< the per-label store: "buffer" (on chip) or "dram"
  bool operator==(const SpecBpSettings& o) const {
    return threshold == o.threshold && store == o.store;
  }
};

}  // namespace trainsim
