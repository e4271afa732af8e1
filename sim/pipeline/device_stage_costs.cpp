#include "sim/pipeline/device_stage_costs.h"

#include "sim/core/error.h"
#include "sim/devices/op_cost_cache.h"
#include "sim/train/op_stream.h"
#include "sim/train/shape_only_run.h"

namespace trainsim {

namespace {

// Prices each op of the stream on the device and adds it to its layer's pass.
class PricingSink final : public OpSink {
 public:
  PricingSink(const ExperimentSpec& spec, DeviceModel& model, const std::string& where,
              int cost_kind, LayerWork& into)
      : spec_(spec), costs_(model, where, spec.network.name), cost_kind_(cost_kind), into_(into) {}

  void take(const Op& op, int unit, bool discarded) override {
    (void)unit, (void)discarded;
    const int pass = pass_of_role(op.role, cost_kind_);
    if (pass < 0)
      throw UserError("technique '" + spec_.sim.technique.label() +
                      "' cannot run on a pipeline: its " + role_name(op.role) +
                      " work depends on the data");
    const OpCost& c = costs_.cost(op);
    PricedWork& w =
        into_.layers[static_cast<std::size_t>(op.layer)][static_cast<std::size_t>(pass)].priced;
    w.seconds += c.time_s;
    w.joules += c.energy_j;
    w.bytes += c.bytes;
    w.macs = checked_add(w.macs, op.macs());
    ++w.ops;
  }
  void complete(Phase phase, bool whole_step) override { (void)phase, (void)whole_step; }

 private:
  const ExperimentSpec& spec_;
  OpCostCache costs_;  // one cost per distinct op of the stream
  int cost_kind_;
  LayerWork& into_;
};

// An op stream that owns its sink: the sink must exist before the stream that feeds it.
struct PricingStream {
  PricingStream(const ExperimentSpec& spec, DeviceModel& model, const std::string& where,
                int cost_kind, LayerWork& into)
      : sink(spec, model, where, cost_kind, into), stream(spec, sink) {}
  PricingSink sink;
  OpStream stream;
};

}  // namespace

LayerWork priced_layer_work(const ExperimentSpec& spec, DeviceModel& model,
                            const std::string& where, int micro, int cost_kind) {
  LayerWork w;
  w.priced = true;
  ExperimentSpec at_micro = spec;
  at_micro.training.batch_size = micro;
  PricingStream s(at_micro, model, where, cost_kind, w);
  w.layers.resize(s.stream.shape().size());
  emit_training_batch(at_micro, s.stream, cost_kind, micro);
  return w;
}

}  // namespace trainsim
