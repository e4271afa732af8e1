#pragma once
// Lookup by name in a registry of variants (dataflows, memory models): each variant class
// has a name(); a registry is a fixed list of pointers to its instances.
#include <string>
#include <vector>

#include "sim/core/error.h"

namespace trainsim {

/// The names of `all`, comma-separated, in registry order.
template <class T>
std::string registry_names(const std::vector<const T*>& all) {
  std::string out;
  for (const T* t : all) out += (out.empty() ? "" : ", ") + t->name();
  return out;
}

/// The entry called `name`, or nullptr.
template <class T>
const T* registry_find(const std::vector<const T*>& all, const std::string& name) {
  for (const T* t : all)
    if (t->name() == name) return t;
  return nullptr;
}

/// The entry called `name`, or a UserError "unknown <what> 'name' (known: ...)".
template <class T>
const T& registry_get(const std::vector<const T*>& all, const std::string& name,
                      const std::string& what) {
  if (const T* t = registry_find(all, name)) return *t;
  throw UserError("unknown " + what + " '" + name + "' (known: " + registry_names(all) + ")");
}

}  // namespace trainsim
