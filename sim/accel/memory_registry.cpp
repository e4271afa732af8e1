#include "sim/accel/memory_model.h"
#include "sim/accel/scalesim_memory.h"
#include "sim/accel/tiled_memory.h"
#include "sim/core/named_registry.h"

namespace trainsim {

const std::vector<const MemoryModel*>& memory_models() {
  static const std::vector<const MemoryModel*> all = {&tiled_memory(), &scalesim_memory()};
  return all;
}

const MemoryModel* find_memory_model(const std::string& name) {
  return registry_find(memory_models(), name);
}

const MemoryModel& memory_model_or_throw(const std::string& name) {
  return registry_get(memory_models(), name, "memory model");
}

}  // namespace trainsim
