#pragma once
#include <string>

namespace trainsim {

/// fast: closed-form costs, memoized by op shape. cycle: the clocked PE-array model that
/// moves real values through the PE registers (slow; for verification and small runs).
enum class Fidelity { kFast, kCycle };

const char* fidelity_name(Fidelity f);
/// Parses "fast" / "cycle"; throws UserError otherwise.
Fidelity parse_fidelity(const std::string& text);

}  // namespace trainsim
