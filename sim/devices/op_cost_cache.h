#pragma once
// The costs a device model gives the ops of one op stream, each priced once: the stream's ops
// live as long as the stream (sim/train/op_stream.h), so an op's address keys its cost. An op
// the device has no kernel for is the one-line error naming the device's key, the op, its
// layer and the network.
#include <string>
#include <unordered_map>
#include <utility>

#include "sim/devices/device_model.h"

namespace trainsim {

class OpCostCache {
 public:
  /// `model` must outlive the cache; `where` is the device's key ("system.devices[1]").
  OpCostCache(DeviceModel& model, std::string where, std::string network)
      : model_(model), where_(std::move(where)), network_(std::move(network)) {}
  /// The cost of `op`, which must live as long as the cache; the reference stays valid.
  const OpCost& cost(const Op& op);

 private:
  DeviceModel& model_;
  std::string where_, network_;
  std::unordered_map<const Op*, OpCost> costs_;
};

}  // namespace trainsim
