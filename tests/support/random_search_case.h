#pragma once
// Random accelerators and ops for the buffer-mapping search's property tests
// (test_mapping_monotone.cpp, test_mapping_shortcuts.cpp): one generator, sized per test by
// RandomCaseSizes, so the tests draw the same kinds of case from the same code.
#include <algorithm>
#include <cstdint>
#include <string>

#include "sim/accel/accelerator_config.h"
#include "sim/core/rng.h"
#include "sim/workload/op.h"

namespace trainsim::test {

/// How large the drawn cases are (inclusive ranges; the buffer is kib_base + kib_step x
/// below(kib_steps) KiB).
struct RandomCaseSizes {
  std::int64_t max_side = 6;  ///< PE rows and columns, from 2
  double kib_base = 0.25, kib_step = 0.125;
  std::uint64_t kib_steps = 24;
  std::int64_t gemm_m = 40, gemm_n = 24, gemm_k = 48;
  std::int64_t batch = 3, channels = 8, filters = 8, height = 10, width = 9;
  /// Inter-op residency: the input on chip as one of below(4) codes (any), or as bit 0 or 1.
  bool any_in_on_chip = false;
  std::uint64_t resident_filter_one_in = 2;  ///< the filter resident in one op of this many
};

inline std::int64_t pick(Rng& rng, std::int64_t lo, std::int64_t hi) {
  return lo + static_cast<std::int64_t>(rng.below(static_cast<std::uint64_t>(hi - lo + 1)));
}

inline AcceleratorSpec random_accel(Rng& rng, const RandomCaseSizes& z, const std::string& name) {
  AcceleratorSpec a;
  a.name = name;
  a.rows = static_cast<int>(pick(rng, 2, z.max_side));
  a.cols = static_cast<int>(pick(rng, 2, z.max_side));
  a.word_bits = 16;
  a.rf = {pick(rng, 3, 12), pick(rng, 16, 96), pick(rng, 4, 16)};
  a.buffer.shared = rng.below(2) == 0;
  a.buffer.kib = z.kib_base + z.kib_step * static_cast<double>(rng.below(z.kib_steps));
  a.buffer.ifmap_kib = a.buffer.filter_kib = a.buffer.ofmap_kib = a.buffer.kib / 3;
  a.buffer.double_buffer = rng.below(5) != 0;
  a.dram.bandwidth_gbps = static_cast<double>(pick(rng, 1, 16));
  a.dram.latency_cycles = pick(rng, 0, 40);
  a.energy.mac = {{16, 1.0}};
  a.mapping.objective = static_cast<MappingObjective>(rng.below(3));
  return a;
}

/// A GEMM (one in three) or a convolution in one of the three roles, with random residency.
inline Op random_op(Rng& rng, const RandomCaseSizes& z) {
  Op op;
  if (rng.below(3) == 0) {
    op = Op::make_gemm({pick(rng, 1, z.gemm_m), pick(rng, 1, z.gemm_n), pick(rng, 1, z.gemm_k)});
  } else {
    ConvShape c;
    c.batch = pick(rng, 1, z.batch);
    c.channels = pick(rng, 1, z.channels);
    c.filters = pick(rng, 1, z.filters);
    c.kernel_h = pick(rng, 1, 3);
    c.kernel_w = pick(rng, 1, 3);
    c.stride = pick(rng, 1, 2);
    c.pad = pick(rng, 0, std::min(c.kernel_h, c.kernel_w) - 1);
    c.height = pick(rng, c.kernel_h, z.height);
    c.width = pick(rng, c.kernel_w, z.width);
    const OpRole roles[] = {OpRole::kForward, OpRole::kBackwardData, OpRole::kBackwardWeight};
    op = Op::make_conv(c, roles[rng.below(3)]);
  }
  op.word_bits = 16;
  if (rng.below(3) == 0)
    op.residency.in_on_chip =
        static_cast<std::uint8_t>(z.any_in_on_chip ? rng.below(4) : 1u << rng.below(2));
  if (rng.below(4) == 0) op.residency.out_keep = 1;
  if (rng.below(z.resident_filter_one_in) == 0) op.resident_filter = true;
  return op;
}

}  // namespace trainsim::test
