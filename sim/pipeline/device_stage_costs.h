#pragma once
// The work of one micro-batch on a pipeline device that is not a trainsim accelerator (a GPU,
// an FPGA: DeviceSpec::model): the same op stream a trainsim accelerator would run
// (sim/train/op_stream.h, the technique's own ops included), each op priced alone by the
// device's model (sim/devices/device_model.h) and summed per layer and pass. Such a device has
// no second unit: a technique's work that an accelerator would run beside its array (ADA-GP's
// predictor) runs on the device itself, after the rest of the pass.
#include <string>

#include "sim/devices/device_model.h"
#include "sim/pipeline/stage_costs.h"
#include "sim/spec/specs.h"

namespace trainsim {

/// One batch of `cost_kind` with `micro` samples of spec's network and technique on `model`.
/// UserError naming `where` (the device's key) if the model has no kernel for one of the ops,
/// or the technique's work depends on the data.
LayerWork priced_layer_work(const ExperimentSpec& spec, DeviceModel& model,
                            const std::string& where, int micro, int cost_kind);

}  // namespace trainsim
