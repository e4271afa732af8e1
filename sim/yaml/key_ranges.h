#pragma once
// The range of every integer key of the configuration. A value outside is a one-line error
// naming the key and the range ("must be in [1, 65536], got 100000", ConfigNode::as_int_in).
//
// The ranges are chosen so that no product the model forms of the values leaves 64 bits.
// Each range alone keeps a value and the sums it enters (an input extent plus twice its
// padding) well inside `int`. Products of several network values (a layer's volume, its
// parameters, the MACs of its passes) are checked where they are formed, per layer, by
// NetShape against the limits in sim/workload/size_limits.h, which in turn assume a batch of
// at most kBatch.max. docs/config.md lists every key with its range.
//
// A new integer key gets a range here (or a local one where it is parsed, if it is used by
// no product), read with as_int_in / as_int64_in; there is no unbounded integer read.
//
// Number keys whose values become a time or a counter (clocks, bandwidths, latencies,
// periods) have a range too (DoubleRange, ConfigNode::as_double_in), at the end of this file.
// Within them, a time or count the model forms of several values is still checked where it
// becomes an integer (sim/core/checked_span.h), and whole-run sums where they are added
// (sim/spec/op_stats.h), each with a one-line error naming the keys.
#include <cstdint>
#include <limits>

#include "sim/yaml/yaml_reader.h"

namespace trainsim::key_range {

// --- Network geometry -------------------------------------------------------------------
/// input channels / height / width, dense units, conv filters and groups, resize sizes:
/// 2^20 leaves any three multiplied (a volume, 2^60) inside int64 before NetShape compares
/// the product with its limits.
inline constexpr IntRange kExtent{1, 1 << 20};
inline constexpr IntRange kClasses{2, 1 << 20};
/// Kernel height / width and stride: a pooling window (kh * kw) is an `int` read count of
/// the element-wise op that lowers it, 2^24 at most.
inline constexpr IntRange kWindow{1, 4096};
/// Padding on either side: an extent (<= 2^30, NetShape's volume limit) plus twice the
/// padding stays inside int.
inline constexpr IntRange kPadding{0, 4096};

// --- Training ---------------------------------------------------------------------------
/// NetShape's per-sample limits times 2^16 samples bound every op (sim/workload/size_limits.h).
inline constexpr IntRange kBatch{1, 1 << 16};
/// Epochs (also ADA-GP's warm-up and schedule lengths, for which 0 is allowed): whole-run
/// counters sum over epochs, so they are bounded far below what 64-bit sums can take.
inline constexpr IntRange kEpochs{1, 10000};
inline constexpr IntRange kEpochsOrZero{0, 10000};
/// dataset.train_limit / test_limit (0 = all): a cap on samples, no product; 2^40 is far
/// above any dataset and keeps samples x epochs inside 2^54.
inline constexpr IntRange kSampleLimit{0, std::int64_t{1} << 40};

// --- Techniques -------------------------------------------------------------------------
/// A technique's own array; 0 = as the main array. (A technique's other keys have their
/// ranges beside its settings: sim/techniques/.)
inline constexpr IntRange kUnitExtent{0, 4096};

// --- Systems of devices -----------------------------------------------------------------
/// Devices of a system (each entry's `count` too): the platform has a process per device
/// and two per link direction, and per-device tables are printed; 64 is past every
/// pipeline in the papers trainsim models (4 devices) with room for sweeps.
inline constexpr IntRange kDevices{1, 64};
/// A device index in a custom link's `between`.
inline constexpr IntRange kDeviceIndex{0, 63};
/// A layer index in pipeline.stages: a tensor id packs the layer in 20 bits
/// (sim/workload/op.h), so no network has more layers (checked against the network too).
inline constexpr IntRange kLayerIndex{0, (1 << 20) - 2};
/// Micro-batches per batch: at most the batch (checked against it), so kBatch's bound.
inline constexpr IntRange kMicroBatches{1, 1 << 16};
/// Model chunks per device (interleaved 1F1B): stages = devices x chunks <= 4096 tasks per
/// micro-batch and pass.
inline constexpr IntRange kChunks{1, 64};

// --- Accelerator ------------------------------------------------------------------------
/// Array rows and cols: at most 2^24 PEs, which the cycle-level engines count in `int`.
inline constexpr IntRange kArrayExtent{1, 4096};
/// Per-PE register files in words (Eyeriss: 12 / 224 / 24).
inline constexpr IntRange kRfWords{1, 1 << 20};
/// Output accumulator words (0: none; a TPU v1 has 4,096 x 256 = 2^20).
inline constexpr IntRange kAccumulatorWords{0, 1 << 30};
inline constexpr IntRange kBanks{1, 1 << 16};
/// Words per cycle of the buffer, the NoC, and lanes of the vector unit.
inline constexpr IntRange kPerCycle{1, 1 << 20};
/// DRAM latency in cycles, added per transfer.
inline constexpr IntRange kLatencyCycles{0, 1 << 20};

// --- Devices (configs/devices/) -----------------------------------------------------------
/// An FPGA's DSP and on-chip RAM blocks (a Stratix 10 GX 2800 has 5,760 and 11,721).
inline constexpr IntRange kFpgaBlocks{1, 1 << 24};
inline constexpr IntRange kRamBlockBytes{1, 1 << 20};
/// An FPGA kernel design's compute units, work-group size and unroll degree: their product
/// with the SIMD width (<= 16) and a tile's 16 bytes per work-item and unrolled step (RAM use,
/// sim/devices/fpga_design.h) stays below 2^43.
inline constexpr IntRange kComputeUnits{1, 64};
inline constexpr IntRange kWorkGroup{1, 1 << 16};
inline constexpr IntRange kUnroll{1, 4096};
/// Designs in an FPGA's design space: the search evaluates each (the paper's MatMul space has
/// 20,480).
inline constexpr std::int64_t kMaxDesignSpace = std::int64_t{1} << 20;

// --- Energy tables ----------------------------------------------------------------------
/// per_bits of an access energy and the operand widths of the MAC table.
inline constexpr IntRange kBits{1, 4096};

// --- Rates and times (numbers) ------------------------------------------------------------
/// Any number at most this: a range with no upper limit of its own ("must be >= X").
inline constexpr double kNoMax = std::numeric_limits<double>::max();
/// accelerator.clock_ghz: SystemC counts time in whole picoseconds. At 100 GHz a period is
/// 10 ps, which that resolution rounds by at most 5%; at 1 MHz (10^6 ps) the 2^63 ps that
/// simulated time may reach (models/sim_time.h) still hold 9.2e12 cycles.
inline constexpr DoubleRange kClockGhz{1e-3, 100};
/// Device clocks in MHz (gpu, fpga: clock_mhz, fit.fmax_base_mhz): the same 1 MHz to 100 GHz.
inline constexpr DoubleRange kClockMhz{1, 1e5};
/// Bandwidths in GB/s (accelerator.dram, system links, hype links, devices' memory_gbps):
/// 1 MB/s to 1 EB/s. At 1 MB/s a gigabyte takes 10^18 ps, inside the 2^62 one transfer may
/// take (sim/core/checked_span.h); below, ordinary tensors' transfers would not be, and a
/// subnormal rate would divide to infinity.
inline constexpr DoubleRange kBandwidthGbps{1e-3, 1e9};
/// Latencies of links and kernel launches, up to one second (10^12 ps, 10^6 us): no link or
/// kernel launch takes longer, and in picoseconds a hop then adds at most 2^40.
inline constexpr DoubleRange kLatencyNs{0, 1e9};
inline constexpr DoubleRange kLatencyUs{0, 1e6};
/// Peak TFLOP/s of a GPU: 1 MFLOP/s up; below, an op's time of FLOPs over peak leaves the
/// doubles a run sums (a subnormal peak divides to infinity).
inline constexpr DoubleRange kTflops{1e-6, kNoMax};
/// Global-buffer sizes in KiB: about a byte (0.001 KiB) to 1 TiB, so a partition's words
/// (<= 2^40) times a tile extent (<= 2^20) stay inside int64 in the buffer mapping.
inline constexpr DoubleRange kBufferKib{1e-3, 1 << 30};
/// buffer.port_words_per_cycle: 0 (unlimited) or up to kPerCycle's 2^20.
inline constexpr DoubleRange kPortWords{0, 1 << 20};
/// hype.dvfs.period_ms: the runtime handles one controller event per period (each scanning
/// the busy intervals so far), so the period bounds the work of an iteration: at 0.01 ms
/// BERT-large's takes about 2 s to simulate, at 0.001 ms 20 s, and 1e-9 ms never finished.
/// The default is 1 ms.
inline constexpr DoubleRange kDvfsPeriodMs{1e-2, kNoMax};
/// hype.sample_ms: violations are counted per sample in double; from 1 ns up, the count of
/// an iteration up to 10^6 s stays an exact integer (< 2^53).
inline constexpr DoubleRange kSampleMs{1e-6, kNoMax};

}  // namespace trainsim::key_range
