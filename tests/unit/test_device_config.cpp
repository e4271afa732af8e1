// Device files (configs/devices/, sim/config/device_config.h): the kind registry, the shipped
// presets, and bad input as one-line errors naming file, line, column and key.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "sim/config/device_config.h"
#include "sim/devices/gpu_model.h"
#include "tests/support/device_yaml.h"

using namespace trainsim;
using trainsim::test::check_device_error;
using trainsim::test::device_from_text;
using trainsim::test::error_of;

namespace {

const std::string kGpu =
    "kind: gpu\n"
    "clock_mhz: 1000\n"
    "peak_tflops: {fp32: 10}\n"
    "memory_gbps: 500\n"
    "power: {static_w: 20, dynamic_max_w: 100}\n";

}  // namespace

TEST_CASE("Device kinds are registered in a fixed order", "[devices][registry]") {
  std::vector<std::string> names;
  for (const DeviceKind* k : device_kinds()) {
    names.push_back(k->name());
    CHECK_FALSE(k->description().empty());
    CHECK_FALSE(k->keys().empty());
    CHECK(find_device_kind(k->name()) == k);
  }
  CHECK(names == std::vector<std::string>{"gpu"});
  CHECK(find_device_kind("tpu") == nullptr);
  CHECK(unknown_device_kind("tpu") == "unknown device kind 'tpu' (known: gpu)");
}

TEST_CASE("An unknown device kind is an error at its key", "[devices][registry]") {
  check_device_error("kind: tpu\nclock_mhz: 1\n", "tpu", "kind",
                     "unknown device kind 'tpu' (known: gpu)");
  check_device_error("clock_mhz: 1\n", "clock_mhz", "kind", "missing required key");
  // The error from a device file names that file.
  const std::string msg = error_of([] { load_device("no_such_device"); });
  CHECK(msg.find("unknown device 'no_such_device'") != std::string::npos);
  CHECK(msg.find("shipped devices: v100") != std::string::npos);
}

TEST_CASE("The shipped device presets load with their sources' values", "[devices][config]") {
  std::vector<std::string> shipped = shipped_device_names();
  CHECK(shipped == std::vector<std::string>{"v100"});
  const auto v100 = load_device("v100");
  CHECK(v100->kind == "gpu");
  CHECK(v100->name == "v100");
  CHECK(v100->source.find("configs/devices/v100.yaml") != std::string::npos);
  const auto& g = dynamic_cast<const GpuSpec&>(*v100);
  CHECK(g.clock_mhz == 1530);
  CHECK(g.tensor_tflops == 125);
  CHECK_FALSE(g.tensor);
  CHECK(g.dynamic_max_w == 261);
  CHECK(g.static_w == 39);
  CHECK(g.peak_over_average_w == 6);
  for (const std::string& n : shipped) {
    CHECK_FALSE(load_device(n)->figures().empty());
    CHECK(load_device(n)->build()->name() == n);
  }
}

TEST_CASE("Device files reject unknown keys and values out of range", "[devices][config]") {
  REQUIRE(device_from_text(kGpu)->kind == "gpu");
  check_device_error(kGpu + "fit: {launch_us: 5, warp_size: 32}\n", "warp_size", "fit.warp_size",
                     "unknown key 'warp_size'");
  check_device_error(kGpu + "bogus: 1\n", "bogus", "bogus", "unknown key 'bogus'");
  check_device_error("kind: gpu\nclock_mhz: 0\n", "0", "clock_mhz", "must be > 0, got 0");
  check_device_error(kGpu + "fit: {efficiency_max: 1.5}\n", "1.5", "fit.efficiency_max",
                     "must be in (0, 1], got 1.5");
  check_device_error(kGpu + "precision: fp64\n", "fp64", "precision", "fp32, tensor");
  check_device_error(kGpu + "precision: tensor\n", "tensor", "precision",
                     "needs peak_tflops.tensor");
  check_device_error("kind: gpu\nclock_mhz: 1000\npeak_tflops: {fp32: 10}\nmemory_gbps: 500\n",
                     "kind", "power", "missing required key");
}
