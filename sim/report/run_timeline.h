#pragma once
// timeline.json of a run on one accelerator: its first flushes as a Chrome trace (open it in
// Perfetto or chrome://tracing), one track per unit that computes: the main PE array and
// vector unit, and a technique's own array and its vector unit when it has one; then the DRAM
// channel they share, each op's traffic one transfer on it. Each op is a slice named by its
// layer and role, with its MACs, DRAM bytes and phase. The window is
// bounded (SessionRecord::kTraceFlushes), so the file stays small for any run length.
#include <string>

#include "sim/train/accel_session.h"

namespace trainsim {

std::string run_timeline_json(const AcceleratorSession& session);

}  // namespace trainsim
