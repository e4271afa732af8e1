#pragma once
// The `scalesim` memory model: the global buffer and DRAM side of an op as SCALE-Sim costs
// it (the array-side counts come from the dataflow). Each op is costed in isolation: its
// operands start in DRAM and its outputs end there; no tiling for buffer reuse, no reuse of
// a tensor across consecutive ops. Kept so that runs can be compared with SCALE-Sim's
// assumptions; the default is the tiled model (sim/accel/tiled_memory.cpp).
//
// DRAM traffic per operand o with footprint F_o (unique words) and buffer partition C_o:
//   F_o <= C_o:  read once, F_o words.
//   F_o >  C_o:  the buffer re-reads the operand (buffer reads R_o > F_o, decided by the
//                dataflow's loop order); the part of those re-reads that the partition
//                cannot keep comes from DRAM again:
//                  DRAM = F_o + (R_o - F_o) * (1 - C_o / F_o)
//   ofmap:       final outputs are written once; partial sums that spill (buffer writes
//                beyond F_o, when F_o > C_o) cost a DRAM write and a read each, scaled the
//                same way.
// Stall: the DMA streams while the array computes, so
//   stall = max(0, latency + ceil(DRAM bytes / bytes per cycle) - compute cycles).
// A shared buffer is split in three equal partitions for this model.
#include <array>
#include <cstdint>

#include "sim/accel/memory_model.h"
#include "sim/spec/accel_spec.h"
#include "sim/spec/op_stats.h"
#include "sim/workload/op.h"

namespace trainsim {

/// Unique words of each operand (ifmap, filter, ofmap) of `op`, as stored in DRAM:
/// activations and weights of the layer, not the im2col-expanded GEMM operands.
std::array<std::int64_t, kNumOperands> operand_footprint_words(const Op& op);

/// Buffer partition capacity of each operand, in words.
std::array<std::int64_t, kNumOperands> partition_words(const AcceleratorSpec& acc);

/// Throws UserError if a partition cannot hold one array-sized tile of its operand
/// (min(footprint, rows x cols) words).
void check_buffer_fits(const Op& op, const AcceleratorSpec& acc);

/// Fills dram_read_bytes / dram_write_bytes from the array-side buffer counts.
void account_dram(const Op& op, const AcceleratorSpec& acc, OpStats& s);

/// Cycles the DRAM channel needs for `bytes` on its own: latency + ceil(bytes / B).
std::int64_t dram_cycles(std::int64_t bytes, const AcceleratorSpec& acc);

/// Cycles the buffer port needs for the op's buffer reads and writes on its own (0 when the
/// port is unlimited).
std::int64_t buffer_port_cycles(const OpStats& s, const AcceleratorSpec& acc);

/// stall_cycles = max(0, max(dram_cycles, buffer_port_cycles) - compute_cycles), when nothing
/// else shares the DRAM channel or the buffer port.
void account_stall(const AcceleratorSpec& acc, OpStats& s);

/// The model itself (registered as `scalesim`).
const MemoryModel& scalesim_memory();

}  // namespace trainsim
