#include "sim/config/network_lookup.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "sim/config/experiment_config.h"
#include "sim/core/paths.h"

namespace trainsim {

namespace fs = std::filesystem;

namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

fs::path experiment_dir(const std::string& experiment_path) {
  fs::path dir = fs::path(experiment_path).parent_path();
  return dir.empty() ? fs::path(".") : dir;
}

}  // namespace

bool is_network_path(const std::string& ref) {
  return ref.find('/') != std::string::npos || ends_with(ref, ".yaml");
}

std::optional<std::string> find_network_file(const std::string& ref,
                                             const std::string& experiment_path,
                                             std::vector<std::string>* tried) {
  std::vector<fs::path> candidates;
  if (is_network_path(ref)) {
    if (fs::path(ref).is_absolute()) {
      candidates.push_back(ref);
    } else {
      candidates.push_back(experiment_dir(experiment_path) / ref);
      candidates.push_back(ref);
    }
  } else {
    candidates.push_back(fs::path(configs_root()) / "networks" / (ref + ".yaml"));
    candidates.push_back(experiment_dir(experiment_path) / ".." / "networks" / (ref + ".yaml"));
  }
  std::vector<std::string> seen;
  for (const auto& c : candidates) {
    // Normalised so that messages and NetworkSpec::source show a clean path.
    std::string p = c.lexically_normal().string();
    if (std::find(seen.begin(), seen.end(), p) != seen.end()) continue;
    seen.push_back(p);
    if (tried != nullptr) tried->push_back(p);
    std::error_code ec;
    if (fs::is_regular_file(p, ec)) return p;
  }
  return std::nullopt;
}

std::vector<std::string> shipped_network_names() {
  std::vector<std::string> names;
  std::error_code ec;
  fs::directory_iterator it(fs::path(configs_root()) / "networks", ec);
  if (ec) return names;
  for (const auto& entry : it) {
    if (entry.is_regular_file(ec) && entry.path().extension() == ".yaml") {
      names.push_back(entry.path().stem().string());
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace trainsim
