// trainsim's own accelerator as a device (sim/devices/accel_device.h): an op costs exactly what
// trainsim's single-op costing says (the fast fidelity's cycles at the clock, the priced
// energy, the DRAM bytes), which is also what the SystemC system measures for the op alone
// (`trainsim layer`).
#include <catch2/catch.hpp>

#include <vector>

#include "dataflows/registry.h"
#include "models/accel_node.h"
#include "sim/accel/accelerator_config.h"
#include "sim/accel/cost_model.h"
#include "sim/accel/energy.h"
#include "sim/devices/accel_device.h"
#include "sim/devices/device_config.h"
#include "tests/support/device_yaml.h"

using namespace trainsim;

namespace {

// A few ops of LeNet-5-like shapes in every role the accelerator times differently.
std::vector<Op> sample_ops() {
  ConvShape c;
  c.batch = 8, c.channels = 6, c.height = c.width = 14, c.filters = 16;
  c.kernel_h = c.kernel_w = 5;
  ElementwiseShape update;
  update.elements = 2416, update.reads = 2, update.writes = 1, update.flops = 2;
  ElementwiseShape relu;
  relu.elements = 8 * 16 * 10 * 10;
  return {Op::make_gemm({64, 120, 400}),
          Op::make_gemm({400, 120, 64}, OpRole::kBackwardWeight),
          Op::make_conv(c),
          Op::make_conv(c, OpRole::kBackwardData),
          Op::make_conv(c, OpRole::kBackwardWeight),
          Op::make_eltwise(update, OpRole::kUpdate),
          Op::make_eltwise(relu, OpRole::kActivationGrad)};
}

void check_costs_as_trainsim(DeviceModel& device, const AcceleratorSpec& acc, const Dataflow& df) {
  for (const Op& op : sample_ops()) {
    INFO(op.describe());
    Op at_width = op;
    at_width.word_bits = acc.word_bits;
    const OpStats s = evaluate_op(at_width, acc, df);
    const OpCost c = device.cost(op);
    CHECK(c.supported);
    CHECK(c.time_s == static_cast<double>(s.cycles()) / (acc.clock_ghz * 1e9));
    CHECK(c.energy_j == price(s, acc).total() * 1e-12);
    CHECK(c.bytes == static_cast<double>(s.dram_bytes()));
    CHECK(c.avg_w == c.energy_j / c.time_s);
    CHECK(c.peak_w == c.avg_w);
    CHECK(c.avg_w >= device.static_w() * (1 - 1e-12));  // leakage is part of the energy
    // The SystemC system, running the op alone, takes the same cycles.
    std::vector<OpRequest> batch(1);
    batch[0].op = at_width;
    AcceleratorNode sys(acc, df, Fidelity::kFast);
    sys.run(batch);
    CHECK(batch[0].stats.cycles() == s.cycles());
  }
}

}  // namespace

TEST_CASE("An accelerator device costs an op as trainsim does", "[devices][accel]") {
  const auto spec = load_device("adagp_ws180");
  auto device = spec->build();
  CHECK(device->kind() == "accelerator");
  const AcceleratorSpec acc = load_accelerator("adagp_ws180");
  const EnergyTable& t = acc.energy;
  CHECK(device->static_w() ==
        Approx((180 * t.leakage_per_pe_ns + 108 * t.leakage_per_kib_ns) * 1e-3));
  check_costs_as_trainsim(*device, acc, dataflow_or_throw("ws"));
  // Memoized: the same op again costs the same.
  const Op op = sample_ops()[2];
  CHECK(device->cost(op).time_s == device->cost(op).time_s);
}

TEST_CASE("An accelerator device runs the dataflow its file names", "[devices][accel]") {
  const auto spec = test::device_from_text(
      "kind: accelerator\naccelerator: eyeriss_like\n"
      "dataflow: os\n");
  auto device = spec->build();
  check_costs_as_trainsim(*device, load_accelerator("eyeriss_like"), dataflow_or_throw("os"));
}
