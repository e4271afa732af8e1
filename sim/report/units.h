#pragma once
// Names that carry an energy table's unit (configs/energy: `unit: pJ` or `normalized`), so a
// figure in multiples of a MAC is never read as picojoules.
#include <string>

namespace trainsim {

/// "pJ" -> "pj", "normalized" -> "norm" (others: lower case).
std::string energy_suffix(const std::string& unit);
/// `base` + "_" + energy_suffix(unit), e.g. energy_pj, eval_energy_norm.
std::string energy_column(const std::string& base, const std::string& unit);

}  // namespace trainsim
