#include "sim/core/paths.h"

#include <cstdlib>
#include <filesystem>

namespace trainsim {

namespace {
std::string env_or(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return (v != nullptr && *v != '\0') ? std::string(v) : fallback;
}
}  // namespace

std::string configs_root() {
  // The source tree's configs when built from it; the installed ones when the source tree
  // is gone (a library installed with `cmake --install` and used elsewhere).
  const std::string source = TRAINSIM_SOURCE_DIR "/configs";
  std::error_code ec;
  if (std::filesystem::is_directory(source, ec)) return env_or("TRAINSIM_CONFIGS", source);
  return env_or("TRAINSIM_CONFIGS", TRAINSIM_INSTALLED_CONFIGS);
}

std::string data_root() {
  return env_or("TRAINSIM_DATA", TRAINSIM_SOURCE_DIR "/data");
}

}  // namespace trainsim
