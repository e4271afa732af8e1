#include "sim/report/units.h"

#include <cctype>

namespace trainsim {

std::string energy_suffix(const std::string& unit) {
  if (unit == "normalized") return "norm";  // short: it ends many column names
  std::string s = unit;
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string energy_column(const std::string& base, const std::string& unit) {
  return base + "_" + energy_suffix(unit);
}

}  // namespace trainsim
