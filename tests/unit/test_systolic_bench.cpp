// Speed of the systolic cycle engines (step() alone) on a 16x16 array. Hidden: run it with
//   trainsim_tests "[benchmark]"
// It prints cycles per second and asserts nothing about timing.
#include <catch2/catch.hpp>

#include <chrono>
#include <cstdio>

#include "dataflows/registry.h"
#include "sim/accel/reference.h"

using namespace trainsim;

TEST_CASE("systolic engine speed on 16x16", "[.][benchmark]") {
  AcceleratorSpec acc;
  acc.name = "bench";
  acc.rows = acc.cols = 16;
  // Full folds and a long stream, so the array is busy most cycles.
  const Op op = Op::make_gemm({512, 64, 64});
  for (const char* name : {"ws", "os", "is"}) {
    const Dataflow& df = dataflow_or_throw(name);
    std::int64_t cycles = 0;
    double seconds = 0;
    while (seconds < 0.5) {
      auto eng = df.engine(op, acc, make_operands(op, true, 1));
      const auto t0 = std::chrono::steady_clock::now();
      while (eng->step()) ++cycles;
      seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    }
    std::printf("systolic %s engine, 16x16, M=512 N=64 K=64: %.2f M cycles/s\n", name,
                static_cast<double>(cycles) / seconds / 1e6);
  }
  SUCCEED();
}
