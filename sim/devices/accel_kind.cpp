// The `accelerator` device kind: a trainsim accelerator preset (or file, or inline mapping) and
// the dataflow it runs.
#include "dataflows/registry.h"
#include "sim/accel/accelerator_parse.h"
#include "sim/core/named_registry.h"
#include "sim/devices/accel_device.h"
#include "sim/devices/kinds.h"

namespace trainsim {
namespace {

class AccelKind final : public DeviceKind {
 public:
  std::string name() const override { return "accelerator"; }
  std::string description() const override {
    return "a trainsim accelerator (any preset and dataflow): each op's fast-fidelity cycles "
           "and its energy priced with the accelerator's table (in pJ)";
  }
  std::vector<std::string> keys() const override { return {"accelerator", "dataflow"}; }
  std::shared_ptr<DeviceModelSpec> parse(const ConfigMap& m,
                                         const std::string& file) const override {
    auto a = std::make_shared<AccelDeviceSpec>();
    const ConfigNode accel = m.require("accelerator");
    a->accelerator = parse_accelerator_ref(accel, file);
    // Watts need joules: a table in multiples of a MAC's energy cannot give them.
    if (a->accelerator.energy.unit != "pJ")
      accel.fail("a device needs an energy table in pJ to give joules and watts; '" +
                 a->accelerator.energy.name + "' is in " + a->accelerator.energy.unit + " units");
    a->dataflow = a->accelerator.dataflow;
    if (auto v = m.get("dataflow")) a->dataflow = v->as_nonempty_string();
    if (find_dataflow(a->dataflow) == nullptr) {
      const std::string what =
          "unknown dataflow '" + a->dataflow + "' (known: " + registry_names(dataflows()) + ")";
      if (auto v = m.get("dataflow")) v->fail(what);
      accel.fail(what);
    }
    return a;
  }
};

}  // namespace

const DeviceKind& accelerator_device_kind() {
  static const AccelKind k;
  return k;
}

}  // namespace trainsim
