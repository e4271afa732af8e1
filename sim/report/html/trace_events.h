#pragma once
// The slices of a Chrome trace (timeline.json) as the report draws them: its tracks in the
// order the trace names them (pid, tid; a "thread_name" metadata event names one), and every
// complete ("X") event with a numeric start and duration. Read with nlohmann's SAX parser,
// which keeps only these fields: building the whole tree was a twentieth of a sweep point.
#include <string>
#include <vector>

#include "sim/report/html/svg_chart.h"

namespace trainsim {

struct TraceSlices {
  bool json = false;    ///< the text is JSON
  bool events = false;  ///< it holds an array of events (top-level, or "traceEvents")
  std::vector<std::string> tracks;
  std::vector<GanttSlice> slices;  ///< in the trace's order
};

/// UserError naming `file` if an event's pid, tid, name, cat or ph has the wrong type, or a
/// thread_name's args is not an object.
TraceSlices read_trace_slices(const std::string& text, const std::string& file);

}  // namespace trainsim
