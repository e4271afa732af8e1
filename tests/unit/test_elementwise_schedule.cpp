// The tiled memory model's schedule of an element-wise op (chunks through the vector unit,
// double-buffered): timed alone it jumps over chunks that repeat the one before from the same
// clock state (sim/accel/tiled_memory.cpp, run_elementwise). The jump must land where walking
// every chunk lands: the same cycles and the same counts, on ops of up to a few thousand
// chunks, with operands listed or not (listed words that are not a whole multiple of the
// elements move unequal shares per chunk, and are walked).
#include <catch2/catch.hpp>

#include "sim/accel/fast_context.h"
#include "sim/accel/memory_model.h"
#include "sim/core/rng.h"
#include "tests/support/random_search_case.h"
#include "tests/support/stats_diff.h"

using namespace trainsim;
using trainsim::test::pick;
using trainsim::test::random_accel;
using trainsim::test::RandomCaseSizes;

TEST_CASE("An element-wise op's chunks jumped over take the cycles walking them takes",
          "[tiled][eltwise]") {
  const MemoryModel& tiled = memory_model_or_throw("tiled");
  RandomCaseSizes z;
  z.kib_base = 0.25;
  z.kib_step = 0.25;
  z.kib_steps = 8;
  Rng rng(53);
  int jumped = 0;
  for (int i = 0; i < 600; ++i) {
    AcceleratorSpec a = random_accel(rng, z, "eltwise-test");
    a.vector_lanes = static_cast<int>(pick(rng, 1, 32));
    ElementwiseShape e;
    e.elements = pick(rng, 1, 300000);
    e.reads = static_cast<int>(pick(rng, 1, 3));
    e.writes = static_cast<int>(pick(rng, 1, 2));
    e.flops = static_cast<int>(pick(rng, 1, 4));
    Op op = Op::make_eltwise(e, OpRole::kForward);
    if (rng.below(3) == 0) {
      // Listed tensors: whole multiples of the elements or not.
      op.inputs[0].words = rng.below(2) == 0 ? e.elements : pick(rng, 1, 2 * e.elements);
      op.outputs[0].words = rng.below(2) == 0 ? 2 * e.elements : pick(rng, 1, e.elements);
    }
    INFO(op.describe() << " on " << a.buffer.kib << " KiB, double buffer " << a.buffer.double_buffer
                       << ", " << a.dram.bandwidth_gbps << " GB/s");
    FastContext alone(a, nullptr);
    const OpStats fast = tiled.run_elementwise(op, a, alone);
    FastContext inner(a, nullptr);
    SteppedContext every(inner);
    const OpStats walked = tiled.run_elementwise(op, a, every);
    CHECK(alone.now() == every.now());
    CHECK(test::first_difference(fast, walked).empty());
    std::int64_t chunk = 0;
    for (const auto& [k, v] : fast.mapping)
      if (k == "chunk") chunk = v;
    if (chunk > 0 && e.elements / chunk > 2) ++jumped;
  }
  CHECK(jumped >= 200);  // ops of three full chunks or more, where the jump may apply
}
