#include "dataflows/registry.h"

#include "dataflows/instances.h"
#include "sim/core/error.h"

namespace trainsim {

const std::vector<const Dataflow*>& dataflows() {
  static const std::vector<const Dataflow*> all = {&ws_dataflow(), &os_dataflow(), &is_dataflow(),
                                                   &rs_dataflow()};
  return all;
}

const Dataflow* find_dataflow(const std::string& name) {
  for (const Dataflow* d : dataflows())
    if (d->name() == name) return d;
  return nullptr;
}

const Dataflow& dataflow_or_throw(const std::string& name) {
  if (const Dataflow* d = find_dataflow(name)) return *d;
  std::string known;
  for (const Dataflow* d : dataflows()) known += (known.empty() ? "" : ", ") + d->name();
  throw UserError("unknown dataflow '" + name + "' (known: " + known + ")");
}

}  // namespace trainsim
