#include "sim/core/paths.h"

#include <cstdlib>

namespace trainsim {

namespace {
std::string env_or(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return (v != nullptr && *v != '\0') ? std::string(v) : fallback;
}
}  // namespace

std::string configs_root() {
  return env_or("TRAINSIM_CONFIGS", TRAINSIM_SOURCE_DIR "/configs");
}

std::string data_root() {
  return env_or("TRAINSIM_DATA", TRAINSIM_SOURCE_DIR "/data");
}

}  // namespace trainsim
