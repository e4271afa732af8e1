#pragma once
// Characterization of an iteration's ops for Hype-training's offline planning (He et al.,
// ICS 2021, Sec. 3.2-3.3; docs/hype.md): every op of the op DAG priced on the system's two device
// roles, the `gpu` every op can run on and the `offload` device (an FPGA) ops may move to; which
// ops are offload candidates by the GPU's bandwidth and IPC thresholds; which are faster on the
// offload device; and which small ops may run there anyway because their slack on the GPU-only
// critical path hides the difference (Sec. 3.3, read as slack: docs/hype.md).
//
// The roles, not device kinds, are what this code knows: any two DeviceModels fill them.
// Big ops (the types Table 1 ran on three FPGAs) run on all `offload_count` offload devices
// split by rows (DeviceModel::cost_split), small ones on one, as the paper ran them.
#include <string>
#include <vector>

#include "sim/devices/device_model.h"
#include "sim/hype/op_dag.h"
#include "sim/hype/op_types.h"

namespace trainsim {

/// How the two thresholds combine: the paper's text says an op "whose memory bandwidth is
/// smaller than T_bw or IPC smaller than T_ipc" is a candidate; the rows it offloads fit "and"
/// (research notes 1.3), so both are offered.
enum class ThresholdCombine : std::uint8_t { kAnd, kOr };
/// "and", "or"
const char* threshold_combine_name(ThresholdCombine c);
/// Parses threshold_combine_name() output; false if unknown.
bool parse_threshold_combine(const std::string& text, ThresholdCombine& c);

struct OffloadThresholds {
  double bandwidth_gbps = 0;  ///< candidate if the GPU's bandwidth is at most this
  double ipc = 0;             ///< candidate if the GPU's IPC is at most this
  ThresholdCombine combine = ThresholdCombine::kAnd;
  /// Whether an op with these GPU figures passes (inclusive: the auto thresholds are the
  /// figures of ops that won, which must pass).
  bool pass(const OpCost& gpu) const;
};

/// The two devices and how ops move between them.
struct CharacterizeDevices {
  DeviceModel* gpu = nullptr;
  DeviceModel* offload = nullptr;
  int offload_count = 1;  ///< offload devices the big ops are split over
  /// Bandwidth of each hop between the devices (GPU -> host, host -> offload device), GB/s: an
  /// offloaded op's inputs cross both hops, its outputs both back.
  double link_gbps = 16;
};

/// One op of the DAG.
struct OpCharacter {
  PaperOpType type = PaperOpType::kMatMul;  ///< the paper's (TensorFlow's) name of the op
  OpCost gpu;
  OpCost offload;               ///< on `offload_devices` offload devices
  int offload_devices;          ///< offload_count for big ops, 1 for small
  double transfer_s = 0;        ///< moving its inputs to the offload device and its outputs back
  double slack_s = 0;           ///< on the GPU-only DAG with unlimited devices (dag_times)
  bool candidate = false;       ///< supported offload and the thresholds pass
  bool fast = false;            ///< candidate and faster on the offload device
  bool slack_eligible = false;  ///< small candidate, not fast, slower by at most its slack
  bool planned_offload() const { return fast || slack_eligible; }
};

struct Characterization {
  OffloadThresholds thresholds;
  std::vector<OpCharacter> ops;  ///< one per DAG node
  double gpu_makespan_s = 0;     ///< the GPU-only DAG's longest path
};

/// Whether an op of `type` is a big op (split over every offload device) or a small one.
bool big_offload_type(PaperOpType type);

/// Thresholds as Sec. 3.2 derives them, from `dag`'s MatMul and Conv2D ops only: per type, the
/// largest GPU bandwidth and the largest GPU IPC among its ops that run faster on the offload
/// device (0 if none does); each threshold the larger of the two types'.
OffloadThresholds auto_thresholds(const OpDag& dag, const CharacterizeDevices& devices,
                                  ThresholdCombine combine);

/// Every op of `dag` priced and classified. std::logic_error if a device is missing.
Characterization characterize(const OpDag& dag, const CharacterizeDevices& devices,
                              const OffloadThresholds& thresholds);

}  // namespace trainsim
