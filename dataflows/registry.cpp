#include "dataflows/registry.h"

#include "dataflows/instances.h"
#include "sim/core/named_registry.h"

namespace trainsim {

const std::vector<const Dataflow*>& dataflows() {
  static const std::vector<const Dataflow*> all = {&ws_dataflow(), &os_dataflow(), &is_dataflow(),
                                                   &rs_dataflow()};
  return all;
}

const Dataflow* find_dataflow(const std::string& name) {
  return registry_find(dataflows(), name);
}

const Dataflow& dataflow_or_throw(const std::string& name) {
  return registry_get(dataflows(), name, "dataflow");
}

}  // namespace trainsim
