#include "sim/accel/fidelity.h"

#include "sim/core/error.h"

namespace trainsim {

const char* fidelity_name(Fidelity f) {
  return f == Fidelity::kFast ? "fast" : "cycle";
}

Fidelity parse_fidelity(const std::string& text) {
  if (text == "fast") return Fidelity::kFast;
  if (text == "cycle") return Fidelity::kCycle;
  throw UserError("unknown fidelity '" + text + "' (expected fast or cycle)");
}

}  // namespace trainsim
