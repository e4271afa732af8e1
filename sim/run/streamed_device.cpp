#include "sim/run/streamed_device.h"

#include "sim/core/error.h"
#include "sim/techniques/technique.h"
#include "sim/train/accel_session.h"
#include "sim/train/buffer_storage.h"

namespace trainsim {

bool streamed_technique(const ExperimentSpec& spec) {
  return !technique_info(spec.sim.technique).shape_only;
}

void check_streamed_system(const ExperimentSpec& spec) {
  const std::size_t n = spec.system.devices.size();
  if (n != 1 || spec.pipeline.replicas != 1)
    throw UserError("technique '" + spec.sim.technique.label() +
                    "' depends on the data and is timed from its numerics' ops on one device; "
                    "the system has " +
                    std::to_string(n) + " devices" +
                    (spec.pipeline.replicas != 1 ? " in replicas" : "") +
                    " (give system.devices one device)");
  if (spec.numerics == "none")
    throw UserError("technique '" + spec.sim.technique.label() +
                    "' cannot run with numerics: none: what it does depends on the data");
}

ExperimentSpec layout_spec(const ExperimentSpec& spec) {
  ExperimentSpec s = spec;
  s.sim.technique = TechniqueSpec{};
  return s;
}

namespace {

ExperimentSpec device_spec(const ExperimentSpec& spec) {
  check_streamed_system(spec);
  ExperimentSpec s = spec;
  const DeviceSpec& d = spec.system.devices[0];
  if (!d.model) {
    // An accelerator device runs as the experiment's accelerator would.
    s.sim.accelerator = d.accelerator;
    s.sim.dataflow = d.dataflow;
  }
  return s;
}

}  // namespace

StreamedDevice::StreamedDevice(const ExperimentSpec& spec, Trainer& trainer)
    : spec_(device_spec(spec)) {
  const DeviceSpec& d = spec_.system.devices[0];
  if (d.model) {
    model_ = d.model->build();
    priced_ = std::make_unique<ModelSession>(spec_, trainer.network(), *model_, d.where);
  } else {
    check_buffer_storage(spec_, trainer);
    counted_ = std::make_unique<AcceleratorSession>(spec_, trainer.network());
  }
}

StreamedDevice::~StreamedDevice() = default;

PipelineEpoch StreamedDevice::take_epoch(std::int64_t batches, std::size_t channels) {
  PipelineEpoch e;
  // A streamed technique's batches are all of one kind: the layout model's (bp's) only one.
  e.batches = {batches};
  e.device_work.resize(1);
  e.device_priced.resize(1);
  e.channels.resize(channels);
  std::pair<double, std::int64_t> steps{0, 0};
  if (priced_) {
    const StreamTotals train = priced_->take_epoch()[0];
    e.time_s = train.work.seconds;
    e.device_priced[0] = train.work;
    steps = priced_->take_epoch_steps();
  } else {
    const double hz = spec_.sim.accelerator.clock_ghz * 1e9;
    e.device_work[0] = counted_->record().take_epoch()[0];
    e.time_s = static_cast<double>(e.device_work[0].elapsed_cycles) / hz;
    const auto s = counted_->record().take_epoch_steps();
    steps = {static_cast<double>(s.first) / hz, s.second};
  }
  // One device runs every op: it is never idle.
  e.busy_s = {e.time_s};
  step_s_ = steps.second > 0 ? steps.first / static_cast<double>(steps.second) : -1;
  return e;
}

std::vector<StreamTraceOp> StreamedDevice::trace() const {
  if (priced_) return priced_->trace();
  std::vector<StreamTraceOp> out;
  for (const TraceOp& t : counted_->record().trace())
    out.push_back({static_cast<double>(t.start_ps) * 1e-12, static_cast<double>(t.end_ps) * 1e-12,
                   t.layer, t.unit, t.role, false});
  return out;
}

}  // namespace trainsim
