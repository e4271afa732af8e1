// The FPGA kernel design space (sim/devices/fpga_design.h): the paper's latency indicator on its
// worked example, the size of the S10 space (Sec. 5.5), the binary search and the f_max pruning
// against brute force, and designs too large for the device refused.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "sim/devices/device_config.h"
#include "sim/devices/fpga_model.h"
#include "tests/support/device_yaml.h"

using namespace trainsim;
using trainsim::test::check_device_error;
using trainsim::test::device_from_text;

namespace {

const FpgaSpec& s10() {
  static const auto spec = load_device("s10_gx2500");
  return dynamic_cast<const FpgaSpec&>(*spec);
}

// A tiny FPGA whose resources bind: (the fields after `kernels:` are appended by the tests).
const std::string kSmallFpga =
    "kind: fpga\n"
    "clock_mhz: 500\n"
    "memory_gbps: 10\n"
    "resources: {dsp: 64, ram_blocks: 32}\n"
    "power: {static_w: 5, dynamic_max_w: 10}\n"
    "design_space: {compute_units: [1, 2], simd: [1, 2, 4], work_group: [16, 32], unroll: [1, "
    "16]}\n";

}  // namespace

TEST_CASE("The latency indicator reproduces the paper's worked example", "[devices][fpga]") {
  // Sec. 3.3: A 2048 x 1024, B 1024 x 1024; (CU, SIMD, WG, unroll) = (2, 1, 128, 64) compiled
  // to 210 MHz and (4, 2, 64, 64) to 241 MHz; LI 81.81 and 142.57, the first is better.
  const double first = paper_latency_indicator(2048, 1024, 1024, 210, 128);
  const double second = paper_latency_indicator(2048, 1024, 1024, 241, 64);
  CHECK(first == Approx(81.81).margin(0.005));
  CHECK(second == Approx(142.57).margin(0.005));
  CHECK(first < second);
}

TEST_CASE("The S10 design space has the paper's 20,480 designs", "[devices][fpga]") {
  const FpgaSpec& f = s10();
  CHECK(f.space.compute_units.size() == 4);
  CHECK(f.space.simd.size() == 5);
  CHECK(f.space.work_group.size() == 4);
  CHECK(f.space.unroll_max - f.space.unroll_min + 1 == 256);
  CHECK(f.space.size() == 20480);
}

TEST_CASE("The design search agrees with brute force and prunes by f_max", "[devices][fpga]") {
  const FpgaSpec& f = s10();
  FpgaModel model(f);
  const Op rep = FpgaModel::representative_op(KernelType::kMatMul, SizeClass::kMedium);
  auto time = [&](const FpgaDesign& d, double fmax) { return model.kernel_time_s(d, fmax, rep); };
  const DesignSearch s =
      search_designs(f.space, f.resources, f.fmax, f.clock_mhz, FpgaSpec::kWordBytes, time);
  // Every design, checked and timed one by one.
  std::int64_t feasible = 0;
  double best = INFINITY;
  for (int cu : f.space.compute_units)
    for (int simd : f.space.simd)
      for (int wg : f.space.work_group)
        for (int u = f.space.unroll_min; u <= f.space.unroll_max; ++u) {
          const FpgaDesign d{cu, simd, wg, u};
          if (!design_problem(d, f.resources, FpgaSpec::kWordBytes).empty()) continue;
          ++feasible;
          const DesignUse use = design_use(d, f.resources, FpgaSpec::kWordBytes);
          best = std::min(best, time(d, design_fmax_mhz(use, d, f.fmax, f.clock_mhz)));
        }
  CHECK(s.space == 20480);
  CHECK(s.feasible == feasible);
  CHECK(s.feasible < s.space);     // the resources bind
  CHECK(s.probes < s.space / 10);  // bisection: 8-9 checks per (CU, SIMD, WG), not 256
  REQUIRE_FALSE(s.top.empty());
  CHECK(s.top.front().time_s == best);
  CHECK(s.kept < s.feasible / 100);
  CHECK(s.top.size() == std::min<std::size_t>(5, static_cast<std::size_t>(s.kept)));
  for (std::size_t i = 0; i < s.top.size(); ++i) {
    CHECK(design_problem(s.top[i].design, f.resources, FpgaSpec::kWordBytes).empty());
    if (i > 0) CHECK(s.top[i - 1].time_s <= s.top[i].time_s);
    for (std::size_t j = 0; j < i; ++j)  // kept designs' f_max differ by 10% or more
      CHECK(std::abs(s.top[i].fmax_mhz - s.top[j].fmax_mhz) >=
            0.1 * std::max(s.top[i].fmax_mhz, s.top[j].fmax_mhz));
  }
}

TEST_CASE("Designs larger than the device are refused", "[devices][fpga]") {
  const FpgaResources r{5011, 9963, 2048};
  CHECK(design_problem({2, 1, 128, 64}, r, 4).empty());
  CHECK(design_problem({4, 16, 256, 256}, r, 4) == "needs 16384 DSP blocks, the device has 5011");
  // 2 x 16 x 64 = 2,048 DSPs fit; 4 x 2 x 16 x 1024 x 64 words of 4 bytes (32 MiB) of tiles
  // do not.
  CHECK(design_problem({2, 16, 1024, 64}, r, 4) == "needs 16384 RAM blocks, the device has 9963");
  CHECK(design_problem({1, 16, 40, 1}, r, 4).find("does not divide the work group") !=
        std::string::npos);

  // A pinned design in a device file: one line at the design's key.
  const std::string text =
      kSmallFpga +
      "kernels:\n  matmul:\n    large: {compute_units: 2, simd: 4, work_group: 32, "
      "unroll: 16}\n";
  check_device_error(text, "{compute_units: 2", "kernels.matmul.large",
                     "design CU 2, SIMD 4, WG 32, unroll 16 does not fit: needs 128 DSP blocks, "
                     "the device has 64");
  // A space of which nothing fits.
  const std::string none =
      "kind: fpga\nclock_mhz: 500\nmemory_gbps: 10\nresources: {dsp: 1, ram_blocks: 1}\n"
      "power: {static_w: 5, dynamic_max_w: 10}\n"
      "design_space: {compute_units: [2], simd: [1], work_group: [16], unroll: [1, 4]}\n";
  check_device_error(none, "{compute", "design_space", "no design of the space fits");
}

TEST_CASE("An FPGA has one kernel per op type and size class", "[devices][fpga]") {
  const auto spec = device_from_text(
      kSmallFpga +
      "kernels:\n  matmul: {small: {compute_units: 1, simd: 2, work_group: 16, unroll: 8}}\n"
      "  elementwise: search\n");
  auto built = spec->build();
  auto& model = dynamic_cast<FpgaModel&>(*built);
  for (SizeClass c : {SizeClass::kSmall, SizeClass::kMedium, SizeClass::kLarge}) {
    REQUIRE(model.kernel(KernelType::kMatMul, c) != nullptr);
    REQUIRE(model.kernel(KernelType::kElementwise, c) != nullptr);
    CHECK(model.kernel(KernelType::kConv2D, c) == nullptr);
  }
  const FpgaKernel* pinned = model.kernel(KernelType::kMatMul, SizeClass::kSmall);
  CHECK(pinned->pinned);
  CHECK(pinned->design.design == FpgaDesign{1, 2, 16, 8});
  CHECK(pinned->search.space == 0);
  const FpgaKernel* searched = model.kernel(KernelType::kMatMul, SizeClass::kLarge);
  CHECK_FALSE(searched->pinned);
  CHECK(searched->search.space == 2 * 3 * 2 * 16);
  // An op runs on its class's kernel; a type without a kernel is unsupported.
  CHECK(model.kernel_for(Op::make_gemm({300, 300, 300})) == pinned);
  CHECK(model.kernel_for(Op::make_gemm({5000, 10, 10})) == searched);
  ConvShape c;
  const OpCost conv = model.cost(Op::make_conv(c));
  CHECK_FALSE(conv.supported);
  CHECK(std::isnan(conv.time_s));
  CHECK(model.cost(Op::make_gemm({300, 300, 300})).supported);
}
