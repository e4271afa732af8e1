#pragma once
// The output files of a run on a system of devices (sim/run/system_runner.cpp):
//   stages.csv     per stage: its layers, devices, and what one micro-batch costs there
//   devices.csv    per device: busy, idle, peak in-flight micro-batches and activation
//                  memory, weights held, work, DRAM traffic, energy
//   links.csv      per link direction: bytes, transfers, busy time, energy
//   epochs.csv     per epoch: batches of each kind, time, idle fraction, energy (and the
//                  accuracy of a real-data run)
//   timeline.json  the first stretch of training as a Chrome trace (Perfetto,
//                  chrome://tracing): one track per device and per link direction
//   stats.json     all of it as one tree
#include <string>
#include <vector>

#include "sim/data/dataset.h"
#include "sim/pipeline/pipeline_model.h"
#include "sim/train/model_session.h"
#include "sim/train/trainer.h"

namespace trainsim {

/// What a system run produced, whole-run and per epoch.
struct SystemRunData {
  const ExperimentSpec* spec = nullptr;
  PipelineModel* model = nullptr;
  DatasetShape data;
  /// The samples an epoch trains on: data.train, less the last partial batch's with
  /// training.drop_last.
  std::int64_t trained_samples = 0;
  std::vector<PipelineEpoch> epochs;
  PipelineEpoch totals;                ///< the whole run's sums, priced (the runner's)
  std::vector<EpochMetrics> metrics;   ///< empty for shape-only runs
  const BatchRun* timeline = nullptr;  ///< the run timeline.json shows, if scheduled
  /// Of a run timed from its numerics' ops (sim/run/streamed_device.h; timeline null): the
  /// first ones, which timeline.json shows instead.
  std::vector<StreamTraceOp> stream_trace;
  std::string status = "complete";
};

/// Idle device time over devices x time.
double idle_fraction(const PipelineEpoch& e);
/// Energy of one device's work: its energy table's unit (an accelerator), pJ (a device with a
/// model), as PipelineModel::price_work() set it.
double device_energy(const PipelineEpoch& e, int device);
/// MACs of one device's work.
std::int64_t device_macs(const ExperimentSpec& spec, const PipelineEpoch& e, int device);
/// Bytes to and from one device's memory: an accelerator's counted DRAM bytes, a device with
/// a model's estimate.
std::uint64_t device_memory_bytes(const ExperimentSpec& spec, const PipelineEpoch& e, int device);
/// Energy of the links, in pJ.
double link_energy_pj(const PipelineEpoch& e);
/// The devices' energy unit when every device uses the same one, else "mixed".
std::string device_energy_unit(const ExperimentSpec& spec);

std::string stages_csv(const SystemRunData& r);
std::string devices_csv(const SystemRunData& r);
std::string links_csv(const SystemRunData& r);
std::string system_epochs_csv(const SystemRunData& r);
std::string system_stats_json(const SystemRunData& r);
std::string chrome_trace_json(const SystemRunData& r);

}  // namespace trainsim
