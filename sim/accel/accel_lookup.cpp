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

std::vector<std::string> shipped_accelerator_names() {
  return shipped_config_names("accelerators");
}

std::vector<std::string> shipped_energy_names() {
  return shipped_config_names("energy");
}

}  // namespace trainsim
