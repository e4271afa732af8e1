#include "sim/yaml/config_files.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "sim/core/paths.h"

namespace trainsim {

namespace fs = std::filesystem;

namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

fs::path folder_of(const std::string& file) {
  fs::path dir = fs::path(file).parent_path();
  return dir.empty() ? fs::path(".") : dir;
}

}  // namespace

// The file `ref` names for a config read from `referrer`: a path as given if absolute, else
// relative to the referrer's folder, then to the cwd; a name in <configs root>/<folder>,
// then in <referrer dir>/../<folder>. The second name candidate lets a private configs tree
// (accelerators/ next to energy/, experiments/ next to accelerators/) work without setting
// TRAINSIM_CONFIGS, as networks do for experiments.
std::optional<std::string> find_referenced_file(const std::string& ref, const std::string& folder,
                                                const std::string& referrer,
                                                std::vector<std::string>* tried) {
  std::vector<fs::path> candidates;
  if (is_config_path(ref)) {
    if (fs::path(ref).is_absolute()) {
      candidates.push_back(ref);
    } else {
      candidates.push_back(folder_of(referrer) / ref);
      candidates.push_back(ref);
    }
  } else {
    candidates.push_back(fs::path(configs_root()) / folder / (ref + ".yaml"));
    candidates.push_back(folder_of(referrer) / ".." / folder / (ref + ".yaml"));
  }
  std::vector<std::string> seen;
  for (const auto& c : candidates) {
    std::string p = c.lexically_normal().string();
    if (std::find(seen.begin(), seen.end(), p) != seen.end()) continue;
    seen.push_back(p);
    if (tried != nullptr) tried->push_back(p);
    std::error_code ec;
    if (fs::is_regular_file(p, ec)) return p;
  }
  return std::nullopt;
}

bool is_config_path(const std::string& ref) {
  return ref.find('/') != std::string::npos || ends_with(ref, ".yaml");
}

std::string config_file_stem(const std::string& path) {
  return fs::path(path).stem().string();
}

std::vector<std::string> shipped_config_names(const std::string& folder) {
  std::vector<std::string> names;
  std::error_code ec;
  fs::directory_iterator it(fs::path(configs_root()) / folder, ec);
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
