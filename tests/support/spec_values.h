#pragma once
// Spec values built field by field, for tests that need a few of a spec's fields and the
// defaults for the rest (a brace list that names only the first fields leaves the others to
// their defaults too, but -Wextra asks for every field).
#include "sim/pipeline/schedule.h"
#include "sim/spec/system_spec.h"

namespace trainsim::test {

/// A link between nodes a and b; the other figures LinkSpec's defaults unless given.
inline LinkSpec link_between(int a, int b, double bandwidth_gbps = LinkSpec{}.bandwidth_gbps,
                             double latency_ns = LinkSpec{}.latency_ns,
                             double pj_per_bit = LinkSpec{}.pj_per_bit) {
  LinkSpec l;
  l.a = a;
  l.b = b;
  l.bandwidth_gbps = bandwidth_gbps;
  l.latency_ns = latency_ns;
  l.pj_per_bit = pj_per_bit;
  return l;
}

/// A schedule's sizes, with no custom orders.
inline ScheduleParams schedule_params(int devices, int micro_batches, int chunks = 1) {
  ScheduleParams p;
  p.devices = devices;
  p.micro_batches = micro_batches;
  p.chunks = chunks;
  return p;
}

}  // namespace trainsim::test
