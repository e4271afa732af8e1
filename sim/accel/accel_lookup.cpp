#include "sim/accel/accel_lookup.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "sim/accel/accelerator_config.h"
#include "sim/core/error.h"
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

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : ", ") + s;
  return out;
}

// A path as given, else <configs root>/<folder>/<ref>.yaml or a UserError naming the
// shipped files of that folder.
std::string find_named_config(const std::string& ref, const std::string& folder,
                              const std::string& kind, const std::string& kinds) {
  if (is_config_path(ref)) return ref;
  std::string file = (fs::path(configs_root()) / folder / (ref + ".yaml")).string();
  std::error_code ec;
  if (fs::is_regular_file(file, ec)) return file;
  std::string what = "unknown " + kind + " '" + ref + "' (looked for " + file + ")";
  std::vector<std::string> shipped = shipped_config_names(folder);
  if (!shipped.empty()) what += "; shipped " + kinds + ": " + join(shipped);
  throw UserError(what);
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

std::string find_accelerator_file(const std::string& ref) {
  return find_named_config(ref, "accelerators", "accelerator", "accelerators");
}

std::string find_energy_table_file(const std::string& ref) {
  return find_named_config(ref, "energy", "energy table", "energy tables");
}

std::string find_device_file(const std::string& ref) {
  return find_named_config(ref, "devices", "device", "devices");
}

std::optional<std::string> find_energy_file(const std::string& ref,
                                            const std::string& accelerator_path,
                                            std::vector<std::string>* tried) {
  return find_referenced_file(ref, "energy", accelerator_path, tried);
}

std::optional<std::string> find_experiment_accelerator_file(const std::string& ref,
                                                            const std::string& experiment_path,
                                                            std::vector<std::string>* tried) {
  return find_referenced_file(ref, "accelerators", experiment_path, tried);
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

std::vector<std::string> shipped_accelerator_names() {
  return shipped_config_names("accelerators");
}

std::vector<std::string> shipped_energy_names() {
  return shipped_config_names("energy");
}

}  // namespace trainsim
