#pragma once
// One of trainsim's own accelerators (any preset, any dataflow) as a device, so a user can put
// their PE array where Hype-training put the FPGA. An op costs what trainsim's fast fidelity
// says it costs on that accelerator alone (sim/accel/cost_model.h: the dataflow for GEMMs and
// convolutions, the vector unit for element-wise ops, the memory model for buffer and DRAM),
// priced with the accelerator's energy table (sim/accel/energy.h); that table must be in pJ
// to give joules and watts.
#include <memory>

#include "dataflows/dataflow.h"
#include "sim/accel/cost_model.h"
#include "sim/devices/device_model.h"
#include "sim/spec/accel_spec.h"

namespace trainsim {

struct AccelDeviceSpec final : DeviceModelSpec {
  AcceleratorSpec accelerator;
  std::string dataflow;  ///< registered (dataflows/registry.h)

  std::unique_ptr<DeviceModel> build() const override;
  std::string figures() const override;
  const AccelDeviceSpec* as_accelerator() const override { return this; }
  /// Leakage of the array and buffer, W: the energy table's per-PE and per-KiB figures.
  double static_w() const;
};

/// Leakage of an accelerator's array, `extra_pes` more PEs (a technique's own array) and its
/// buffer, W, from its energy table's per-PE and per-KiB figures (in pJ per ns; a table in
/// other units gives no watts).
double accelerator_static_w(const AcceleratorSpec& acc, std::int64_t extra_pes);

class AccelDeviceModel final : public DeviceModel {
 public:
  explicit AccelDeviceModel(const AccelDeviceSpec& spec);
  AccelDeviceModel(const AccelDeviceModel&) = delete;
  AccelDeviceModel& operator=(const AccelDeviceModel&) = delete;
  const std::string& name() const override { return spec_.name; }
  const std::string& kind() const override { return spec_.kind; }
  double static_w() const override { return spec_.static_w(); }
  int word_bytes() const override { return static_cast<int>(spec_.accelerator.word_bytes()); }
  /// time = the op's fast-fidelity cycles / clock; energy = its priced energy (leakage over
  /// those cycles included); average and peak power = energy / time (one op's energy comes as a
  /// total, so there is no finer peak); traffic = its DRAM bytes. Memoized by op shape (the
  /// buffer-mapping search is the costly part). The op runs at the accelerator's word width.
  OpCost cost(const Op& op) override;

 private:
  AccelDeviceSpec spec_;
  CostModel cost_;  // refers to spec_.accelerator
};

}  // namespace trainsim
