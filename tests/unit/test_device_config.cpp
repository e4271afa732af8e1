// Device files (configs/devices/, sim/devices/device_config.h): the kind registry, the shipped
// presets, and bad input as one-line errors naming file, line, column and key.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <vector>

#include "sim/devices/accel_device.h"
#include "sim/devices/device_config.h"
#include "sim/devices/fpga_model.h"
#include "sim/devices/gpu_model.h"
#include "tests/support/device_yaml.h"

using namespace trainsim;
using trainsim::test::check_device_error;
using trainsim::test::device_from_text;
using trainsim::test::error_of;

namespace {

const std::string kGpuHead =
    "kind: gpu\n"
    "clock_mhz: 1000\n"
    "peak_tflops: {fp32: 10}\n"
    "memory_gbps: 500\n"
    "power: {static_w: 20, dynamic_max_w: 100}\n";
const std::string kGpu = kGpuHead + "sm_count: 16\n";

}  // namespace

TEST_CASE("Device kinds are registered in a fixed order", "[devices][registry]") {
  std::vector<std::string> names;
  for (const DeviceKind* k : device_kinds()) {
    names.push_back(k->name());
    CHECK_FALSE(k->description().empty());
    CHECK_FALSE(k->keys().empty());
    CHECK(find_device_kind(k->name()) == k);
  }
  CHECK(names == std::vector<std::string>{"gpu", "fpga", "accelerator"});
  CHECK(find_device_kind("tpu") == nullptr);
  CHECK(unknown_device_kind("tpu") == "unknown device kind 'tpu' (known: gpu, fpga, accelerator)");
}

TEST_CASE("An unknown device kind is an error at its key", "[devices][registry]") {
  check_device_error("kind: tpu\nclock_mhz: 1\n", "tpu", "kind",
                     "unknown device kind 'tpu' (known: gpu, fpga, accelerator)");
  check_device_error("clock_mhz: 1\n", "clock_mhz", "kind", "missing required key");
  // The error from a device file names that file.
  const std::string msg = error_of([] { load_device("no_such_device"); });
  CHECK(msg.find("unknown device 'no_such_device'") != std::string::npos);
  CHECK(msg.find("shipped devices: adagp_ws180, h100, s10_gx2500, v100") != std::string::npos);
}

TEST_CASE("The shipped device presets load with their sources' values", "[devices][config]") {
  std::vector<std::string> shipped = shipped_device_names();
  CHECK(shipped == std::vector<std::string>{"adagp_ws180", "h100", "s10_gx2500", "v100"});
  const auto v100 = load_device("v100");
  CHECK(v100->kind == "gpu");
  CHECK(v100->name == "v100");
  CHECK(v100->source.find("configs/devices/v100.yaml") != std::string::npos);
  const auto& g = dynamic_cast<const GpuSpec&>(*v100);
  CHECK(g.clock_mhz == 1530);
  CHECK(g.sm_count == 80);
  CHECK(g.peak(GpuPrecision::kFp16) == 125);
  CHECK(g.peak(GpuPrecision::kBf16) == 0);  // Volta has none
  CHECK(g.precision == GpuPrecision::kFp32);
  CHECK(g.dynamic_max_w == 261);
  CHECK(g.static_w == 39);
  // The fitted parameters: tests/unit/test_hype_calibration.cpp checks they are the fit's.
  CHECK(g.fit().peak_over_average_w > 0);
  CHECK(g.has_fit[static_cast<std::size_t>(GpuPrecision::kFp16)]);
  const auto h100 = load_device("h100");
  const auto& h = dynamic_cast<const GpuSpec&>(*h100);
  CHECK(h.sm_count == 132);
  CHECK(h.peak(GpuPrecision::kFp32) == 66.9);
  CHECK(h.peak(GpuPrecision::kBf16) == 989.4);
  CHECK(h.memory_gbps == 3350);
  CHECK(h.static_w + h.dynamic_max_w == 700);  // the board's power limit
  // Both measured precisions are fitted (tests/unit/test_gpu_calibration.cpp: with the fit's
  // values); an open transform bound reads as .inf.
  CHECK(h.has_fit[static_cast<std::size_t>(GpuPrecision::kFp32)]);
  CHECK(h.has_fit[static_cast<std::size_t>(GpuPrecision::kBf16)]);
  CHECK(std::isinf(h.fits[0].transform_backward_weight_max));
  const auto s10 = load_device("s10_gx2500");
  const auto& f = dynamic_cast<const FpgaSpec&>(*s10);
  CHECK(f.clock_mhz == 1000);
  CHECK(f.memory_gbps == 14.9);
  CHECK(f.dynamic_max_w == 33);
  for (const auto& k : f.kernels) CHECK(k.present);
  const auto ws = load_device("adagp_ws180");
  const auto& a = dynamic_cast<const AccelDeviceSpec&>(*ws);
  CHECK(a.accelerator.name == "adagp_ws180");
  CHECK(a.dataflow == "ws");
  for (const std::string& n : shipped) {
    CHECK_FALSE(load_device(n)->figures().empty());
    CHECK(load_device(n)->build()->name() == n);
  }
}

TEST_CASE("Device files reject unknown keys and values out of range", "[devices][config]") {
  REQUIRE(device_from_text(kGpu)->kind == "gpu");
  check_device_error(kGpu + "bogus: 1\n", "bogus", "bogus", "unknown key 'bogus'");
  check_device_error("kind: gpu\nclock_mhz: 0\n", "0", "clock_mhz",
                     "must be in [1, 100000], got 0");
  check_device_error(kGpuHead + "sm_count: -3\n", "-3", "sm_count",
                     "must be in [1, 1048576], got -3");
  check_device_error(kGpuHead, "kind", "sm_count", "missing required key");
  check_device_error(kGpu + "fit: {fp32: {gemm_efficiency: 1.5}}\n", "1.5",
                     "fit.fp32.gemm_efficiency", "must be in (0, 1], got 1.5");
  check_device_error(kGpu + "fit: {fp32: {launch_us: 5, warp_size: 32}}\n", "warp_size",
                     "fit.fp32.warp_size", "unknown key 'warp_size'");
  check_device_error(kGpu + "fit: {fp32: {elementwise: {pooling: {speed: 1}}}}\n", "speed",
                     "fit.fp32.elementwise.pooling.speed", "unknown key 'speed'");
  check_device_error(kGpu + "fit: {fp32: {transform_forward_max: -1}}\n", "-1",
                     "fit.fp32.transform_forward_max", "must be >= 0");
  check_device_error(kGpu + "precision: fp64\n", "fp64", "precision", "fp32, fp16, bf16");
  // A precision without its peak, chosen or fitted: one line naming the missing key.
  check_device_error(kGpu + "precision: bf16\n", "bf16", "precision",
                     "precision bf16 needs peak_tflops.bf16 (its dense peak)");
  check_device_error(kGpu + "fit: {bf16: {launch_us: 3}}\n", "{launch_us", "fit.bf16",
                     "precision bf16 needs peak_tflops.bf16");
  check_device_error(
      "kind: gpu\nclock_mhz: 1000\nsm_count: 16\npeak_tflops: {fp32: 10}\nmemory_gbps: 500\n",
      "kind", "power", "missing required key");

  const std::string fpga =
      "kind: fpga\nclock_mhz: 500\nmemory_gbps: 10\nresources: {dsp: 64, ram_blocks: 32}\n"
      "power: {static_w: 5, dynamic_max_w: 10}\n";
  const std::string space =
      "design_space: {compute_units: [1, 2], simd: [1, 2], work_group: [16], unroll: [1, 8]}\n";
  REQUIRE(device_from_text(fpga + space)->kind == "fpga");
  check_device_error(fpga +
                         "design_space: {compute_units: [1], simd: [3], work_group: [16], "
                         "unroll: [1, 8]}\n",
                     "3]", "design_space.simd.0", "1, 2, 4, 8, 16");
  check_device_error(fpga +
                         "design_space: {compute_units: [2, 1], simd: [1], work_group: [16], "
                         "unroll: [1, 8]}\n",
                     "1], simd", "design_space.compute_units.1", "values must increase");
  check_device_error(fpga +
                         "design_space: {compute_units: [1], simd: [1], work_group: [16], "
                         "unroll: [8, 1]}\n",
                     "1]}", "design_space.unroll.1", "must be >= min (8)");
  check_device_error(fpga + space + "kernels: {softmax: search}\n", "softmax", "kernels.softmax",
                     "unknown key 'softmax'");
  check_device_error(fpga + space + "kernels: {matmul: {tiny: {}}}\n", "tiny",
                     "kernels.matmul.tiny", "unknown key 'tiny'");
  check_device_error(fpga + space + "kernels: {matmul: best}\n", "best", "kernels.matmul",
                     "search");
  check_device_error(
      "kind: fpga\nclock_mhz: 500\nmemory_gbps: 10\nresources: {dsp: 0, ram_blocks: 1}\n", "0,",
      "resources.dsp", "must be in [1, 16777216]");
}

TEST_CASE("An accelerator device needs a registered dataflow and an energy table in pJ",
          "[devices][config]") {
  const auto spec = device_from_text("kind: accelerator\naccelerator: eyeriss_like\n");
  const auto& a = dynamic_cast<const AccelDeviceSpec&>(*spec);
  CHECK(a.dataflow == "rs");  // the preset's own
  CHECK(a.name == "dev");     // the file's stem when the mapping has no name
  check_device_error("kind: accelerator\naccelerator: small_8x8\ndataflow: xs\n", "xs", "dataflow",
                     "unknown dataflow 'xs' (known: ws, os, is, rs)");
  check_device_error("kind: accelerator\naccelerator: nope\n", "nope", "accelerator",
                     "unknown accelerator 'nope'");
  const std::string normalized =
      "kind: accelerator\naccelerator: {dataflow: ws, array: {rows: 4, cols: 4}, energy: "
      "eyeriss_normalized}\n";
  check_device_error(normalized, "{dataflow", "accelerator",
                     "a device needs an energy table in pJ");
}
