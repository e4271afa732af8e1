#pragma once
// A device that runs the ops of a training step: a GPU, an FPGA, or one of trainsim's own
// accelerators. Each kind is a spec (parsed from configs/devices/*.yaml, immutable) and a model
// built from it that prices one op at a time: its time, energy, power, memory traffic. A kind is
// one file per part (its model, its YAML keys) and a line in device_registry.cpp; `trainsim
// list devices` lists the kinds and the shipped presets.
//
// Costs describe the op on an otherwise idle device: contention, transfers and the order of ops
// are the business of whoever schedules them.
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "sim/workload/op.h"
#include "sim/yaml/yaml_reader.h"

namespace trainsim {

/// One op on one device (or on `devices` devices splitting it: cost_split()).
struct OpCost {
  /// The device has a kernel for the op's type; if not, every figure below is NaN.
  bool supported = true;
  double time_s = 0;
  double energy_j = 0;  ///< static energy over time_s included
  double avg_w = 0;     ///< energy_j / time_s
  /// The highest draw while the op runs, static included: what a power cap must allow for.
  double peak_w = 0;
  double bytes = 0;           ///< device-memory traffic
  double bandwidth_gbps = 0;  ///< bytes / time_s, 1e9 bytes per second
  /// A GPU's instructions-per-cycle figure as profilers report it (Table 1 of He et al.); NaN
  /// for devices that have none.
  double ipc = std::numeric_limits<double>::quiet_NaN();
  /// The share of the device's compute units the op keeps busy, (0, 1]: what a second
  /// stream of ops can use beside it (a GPU kernel with fewer thread blocks than SMs). 1 for
  /// kinds that run one op at a time.
  double occupancy = 1;
};

/// The cost of an op a device has no kernel for.
OpCost unsupported_cost();

class DeviceModel {
 public:
  virtual ~DeviceModel() = default;
  virtual const std::string& name() const = 0;
  virtual const std::string& kind() const = 0;
  /// Power drawn while idle, W.
  virtual double static_w() const = 0;
  /// Bytes of one word of the ops it runs (its precision): what turns a size given in bytes
  /// (a Chakra trace's tensor_size) into the words of an op it prices.
  virtual int word_bytes() const = 0;
  /// The cost of `op` on this device alone. Not thread-safe: a model may memoize.
  virtual OpCost cost(const Op& op) = 0;
  /// The cost of `op` partitioned by rows over `devices` devices like this one (split_rows()),
  /// which run their shares side by side: the time of one share; energy, power and traffic of
  /// all of them.
  OpCost cost_split(const Op& op, int devices);
  /// The same device with its clock at `scale` (0, 1] of the full clock, its dynamic power at
  /// scale^`gamma` (voltage following the clock), for DVFS; null if the kind has no clock to
  /// scale.
  virtual std::unique_ptr<DeviceModel> at_clock(double scale, double gamma) const {
    (void)scale, (void)gamma;
    return nullptr;
  }
};

struct AccelDeviceSpec;  // sim/devices/accel_device.h

/// A parsed, validated device: what every kind has, plus its own figures in the kind's subclass.
class DeviceModelSpec {
 public:
  virtual ~DeviceModelSpec() = default;
  /// A fresh model of this device.
  virtual std::unique_ptr<DeviceModel> build() const = 0;
  /// Key figures for `trainsim list devices`, one line.
  virtual std::string figures() const = 0;
  /// A trainsim accelerator as a device: a system simulates it as a single run would (its
  /// SystemC model and the technique's hardware) rather than through build()'s per-op costs.
  /// Null for every other kind.
  virtual const AccelDeviceSpec* as_accelerator() const { return nullptr; }

  std::string name;
  std::string kind;
  std::string description;  ///< free text from the file
  std::string source;       ///< the file it was read from ("<inline>" for an inline mapping)
};

/// A device kind: its YAML keys and how it reads them.
class DeviceKind {
 public:
  virtual ~DeviceKind() = default;
  virtual std::string name() const = 0;
  virtual std::string description() const = 0;
  /// The keys a device of this kind may have besides `kind`, `name` and `description`.
  virtual std::vector<std::string> keys() const = 0;
  /// Reads the kind's keys from `m` (already checked against keys()); relative file references
  /// resolve against `file`. UserError (through ConfigNode::fail) on bad values.
  virtual std::shared_ptr<DeviceModelSpec> parse(const ConfigMap& m,
                                                 const std::string& file) const = 0;
};

/// Every registered device kind, in a fixed order.
const std::vector<const DeviceKind*>& device_kinds();
/// The kind called `name`, or nullptr.
const DeviceKind* find_device_kind(const std::string& name);
/// "unknown device kind 'x' (known: gpu, fpga, accelerator)"
std::string unknown_device_kind(const std::string& name);

}  // namespace trainsim
