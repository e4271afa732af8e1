#pragma once
// The output accumulator (accelerator.accumulator, TPU-style): an SRAM at the array's output
// edge. An array hands its partial sums to the buffer's ofmap port, which adds them onto the
// earlier ones (read-modify-write); where the accumulator holds every output the dataflow
// accumulates at once (a systolic fold's, a row-stationary tile's), the sums go to it
// instead, and the buffer takes each finished output once as it drains. The closed forms
// apply the rule here; the engines count the same events as they happen.
#include <cstdint>

#include "sim/spec/accel_spec.h"
#include "sim/spec/op_stats.h"

namespace trainsim {

/// Whether `outputs_at_once` partial sums fit the accelerator's accumulator (none: never).
inline bool accumulator_holds(std::int64_t outputs_at_once, const AcceleratorSpec& acc) {
  return acc.accumulator.words > 0 && outputs_at_once <= acc.accumulator.words;
}

/// Moves the ofmap port's traffic in `st` (partial-sum writes and their read-modify-write
/// reads) to the accumulator, adds one read of each of the `outputs` finished outputs as it
/// drains, and leaves the buffer those outputs' writes only.
inline void route_psums_to_accumulator(OpStats& st, Count outputs) {
  st.acc.writes[kOfmap] = st.buffer.writes[kOfmap];
  st.acc.reads[kOfmap] = checked_add(st.buffer.reads[kOfmap], outputs, "accumulator reads");
  st.buffer.writes[kOfmap] = outputs;
  st.buffer.reads[kOfmap] = 0;
}

}  // namespace trainsim
