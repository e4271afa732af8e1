// The analytic device models (sim/devices/): the V100 GPU's invariants (time grows with work,
// bandwidth within the memory's, power between static and static + dynamic maximum), the
// S10 FPGA's, and an op split over several devices.
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "sim/config/device_config.h"
#include "sim/devices/fpga_model.h"
#include "sim/devices/gpu_model.h"
#include "sim/devices/op_work.h"
#include "sim/devices/size_class.h"

using namespace trainsim;

namespace {

// Ops of growing work: square GEMMs, convolutions of growing batch, element-wise ops.
std::vector<std::vector<Op>> growing_ops() {
  std::vector<Op> gemms, convs, eltwise;
  for (std::int64_t d : {8, 64, 256, 512, 1000, 1024, 2048, 4096, 8192})
    gemms.push_back(Op::make_gemm({d, d, d}));
  for (std::int64_t b : {1, 4, 16, 64, 256}) {
    ConvShape c;
    c.batch = b, c.channels = 64, c.height = c.width = 56, c.filters = 64;
    c.kernel_h = c.kernel_w = 3, c.pad = 1;
    convs.push_back(Op::make_conv(c, OpRole::kBackwardWeight));
  }
  for (std::int64_t e : {1, 1000, 1 << 18, 1 << 22, 1 << 26}) {
    ElementwiseShape s;
    s.elements = e;
    s.reads = 2;
    eltwise.push_back(Op::make_eltwise(s, OpRole::kForward));
  }
  return {gemms, convs, eltwise};
}

GpuSpec v100() {
  return dynamic_cast<const GpuSpec&>(*load_device("v100"));
}

}  // namespace

TEST_CASE("GPU model: time grows with work, bandwidth and power stay in bounds", "[devices][gpu]") {
  const GpuSpec spec = v100();
  CHECK(spec.fp32_tflops == 15.7);
  CHECK(spec.memory_gbps == 900);
  CHECK(spec.static_w + spec.dynamic_max_w == 300);  // the V100's TDP
  for (bool tensor : {false, true}) {
    GpuSpec s = spec;
    s.tensor = tensor;
    GpuModel gpu(s);
    for (const auto& ops : growing_ops()) {
      double last = 0;
      for (const Op& op : ops) {
        INFO(op.describe() << (tensor ? " tensor" : " fp32"));
        const OpCost c = gpu.cost(op);
        CHECK(c.supported);
        CHECK(c.time_s > last);
        last = c.time_s;
        CHECK(c.bandwidth_gbps <= s.memory_gbps * s.memory_efficiency * (1 + 1e-12));
        CHECK(c.bandwidth_gbps == Approx(c.bytes / c.time_s / 1e9));
        CHECK(s.static_w <= c.avg_w);
        CHECK(c.avg_w <= c.peak_w);
        CHECK(c.peak_w <= s.static_w + s.dynamic_max_w);
        CHECK(c.energy_j == Approx(c.avg_w * c.time_s));
        CHECK(c.ipc >= 0);
        CHECK(c.ipc <= s.ipc_max);
      }
    }
  }
  // More FLOPs on the same bytes take longer: an element-wise op of more operations per element.
  GpuModel gpu(spec);
  ElementwiseShape e;
  e.elements = 1 << 20;
  double last = 0;
  for (int flops : {1, 100, 1000, 10000}) {
    e.flops = flops;
    const double t = gpu.cost(Op::make_eltwise(e, OpRole::kUpdate)).time_s;
    CHECK(t >= last);
    last = t;
  }
  CHECK(last > gpu.cost(Op::make_eltwise(ElementwiseShape{1 << 20}, OpRole::kUpdate)).time_s);
}

TEST_CASE("GPU model: small ops leave the SMs idle, large ones fill them", "[devices][gpu]") {
  GpuModel gpu(v100());
  const GpuSpec& s = gpu.spec();
  auto achieved = [&](std::int64_t d) {
    const OpCost c = gpu.cost(Op::make_gemm({d, d, d}));
    return 2.0 * d * d * d / c.time_s / 1e12;  // TFLOP/s
  };
  CHECK(achieved(64) < 0.05 * s.fp32_tflops);
  CHECK(achieved(8192) > 0.95 * s.efficiency_max * s.fp32_tflops);
  CHECK(achieved(8192) <= s.efficiency_max * s.fp32_tflops);
  // A large GEMM issues near ipc_max (within its 1.2% short of efficiency_max); a streaming
  // element-wise op far fewer.
  CHECK(gpu.cost(Op::make_gemm({8192, 8192, 8192})).ipc == Approx(s.ipc_max).epsilon(0.02));
  CHECK(gpu.cost(Op::make_eltwise(ElementwiseShape{1 << 24}, OpRole::kUpdate)).ipc < 2);
  // Tensor cores speed up GEMMs, not element-wise ops (fp32 peak, half the bytes).
  GpuSpec t = s;
  t.tensor = true;
  GpuModel tc(t);
  const Op big = Op::make_gemm({8192, 8192, 8192});
  CHECK(tc.cost(big).time_s < gpu.cost(big).time_s / 5);
  ElementwiseShape e;
  e.elements = 1 << 24;
  const Op stream = Op::make_eltwise(e, OpRole::kUpdate);
  CHECK(tc.cost(stream).bytes == gpu.cost(stream).bytes / 2);
}

TEST_CASE("GPU model: a long reduction over few results is split over the SMs", "[devices][gpu]") {
  const GpuSpec s = v100();
  CHECK(s.sm_count == 80);
  GpuSpec unsplit = s;
  unsplit.sm_count = 0;
  GpuModel gpu(s), plain(unsplit);
  // VGG-16's conv 64 -> 128 at 112 x 112, batch 256, backward-weight: 73,728 weights, each a
  // reduction over 3.2 M (batch x H x W). Unsplit, 4.5 tiles for 80 SMs.
  ConvShape c;
  c.batch = 256, c.channels = 64, c.height = c.width = 112, c.filters = 128;
  c.kernel_h = c.kernel_w = 3, c.pad = 1;
  const Op weight = Op::make_conv(c, OpRole::kBackwardWeight);
  const OpWork w = op_work(weight, 4);
  REQUIRE(w.outputs == 128 * 64 * 9);
  // Split, the SMs hold one 128 x 128 tile each.
  CHECK(s.parallel_outputs(w.outputs, static_cast<double>(w.gemm.k)) ==
        80 * s.split_k_tile_outputs);
  CHECK(plain.cost(weight).time_s > 5 * gpu.cost(weight).time_s);
  // Never slower than unsplit; the forward pass (M = batch x H x W) fills the SMs unsplit.
  const Op forward = Op::make_conv(c, OpRole::kForward);
  CHECK(gpu.cost(forward).time_s == plain.cost(forward).time_s);
  // A short reduction is not split below split_k_min_depth: 64 x 64 x 512 splits once at most.
  const Op shallow = Op::make_gemm({64, 64, 512});
  CHECK(s.parallel_outputs(64 * 64, 512) == 64 * 64);
  CHECK(gpu.cost(shallow).time_s == plain.cost(shallow).time_s);
  const Op deeper = Op::make_gemm({64, 64, 2048});
  CHECK(s.parallel_outputs(64 * 64, 2048) == 4 * 64 * 64);
  CHECK(gpu.cost(deeper).time_s < plain.cost(deeper).time_s);
}

TEST_CASE("FPGA model: time grows with work within the memory's bandwidth and power",
          "[devices][fpga]") {
  const auto spec = load_device("s10_gx2500");
  const auto& f = dynamic_cast<const FpgaSpec&>(*spec);
  auto model = spec->build();
  CHECK(model->kind() == "fpga");
  CHECK(model->static_w() == f.static_w);
  for (const auto& ops : growing_ops()) {
    double last = 0;
    SizeClass last_class = SizeClass::kSmall;
    for (const Op& op : ops) {
      INFO(op.describe());
      const OpCost c = model->cost(op);
      REQUIRE(c.supported);
      // Non-decreasing on one kernel: ops too small to fill its lanes all take one pass of it.
      // The next size class's kernel may be faster (a 1024^3 GEMM than a 1000^3 one).
      if (size_class(op) == last_class) CHECK(c.time_s >= last);
      last = c.time_s;
      last_class = size_class(op);
      CHECK(c.bandwidth_gbps <= f.memory_gbps * (1 + 1e-12));
      CHECK(c.avg_w == c.peak_w);
      CHECK(f.static_w <= c.avg_w);
      CHECK(c.avg_w <= f.static_w + f.dynamic_max_w);
      CHECK(c.energy_j == Approx(c.avg_w * c.time_s));
      CHECK(std::isnan(c.ipc));
    }
    CHECK(last > model->cost(ops.front()).time_s * 100);
  }
}

TEST_CASE("An op split over devices: one share's time, all shares' power", "[devices]") {
  auto gpu = load_device("v100")->build();
  auto fpga = load_device("s10_gx2500")->build();
  const Op op = Op::make_gemm({3000, 1024, 1024});
  CHECK(split_rows(op, 3).gemm.m == 1000);
  CHECK(split_rows(op, 7).gemm.m == 429);  // rounded up
  for (DeviceModel* d : {gpu.get(), fpga.get()}) {
    const OpCost one = d->cost(op), alone = d->cost_split(op, 1);
    CHECK(alone.time_s == one.time_s);
    CHECK(alone.avg_w == one.avg_w);
    const OpCost three = d->cost_split(op, 3), share = d->cost(split_rows(op, 3));
    CHECK(three.time_s == share.time_s);
    CHECK(three.time_s < one.time_s);
    CHECK(three.avg_w == Approx(3 * share.avg_w));
    CHECK(three.peak_w == Approx(3 * share.peak_w));
    CHECK(three.energy_j == Approx(3 * share.energy_j));
    CHECK(three.bytes == Approx(3 * share.bytes));
  }
}

TEST_CASE("Op work: arithmetic and compulsory bytes of each op kind", "[devices]") {
  const OpWork g = op_work(Op::make_gemm({2, 3, 4}), 4);
  CHECK(g.ops == 24);
  CHECK(g.flops == 48);
  CHECK(g.bytes == (2 * 4 + 4 * 3 + 2 * 3) * 4);
  ConvShape c;
  c.batch = 2, c.channels = 3, c.height = c.width = 8, c.filters = 4, c.kernel_h = c.kernel_w = 3;
  Op conv = Op::make_conv(c, OpRole::kBackwardData);
  conv.repeat = 2;
  const OpWork w = op_work(conv, 2);
  CHECK(w.ops == conv.macs());  // all repetitions
  CHECK(w.outputs == 2 * 128 * 3);
  CHECK(w.bytes == 2 * 2 * (2 * 3 * 64 + 4 * 3 * 9 + 2 * 4 * 36));
  ElementwiseShape e;
  e.elements = 10, e.reads = 3, e.writes = 2, e.flops = 5;
  const OpWork u = op_work(Op::make_eltwise(e, OpRole::kUpdate), 4);
  CHECK(u.ops == 50);
  CHECK(u.outputs == 10);
  CHECK(u.bytes == 10 * 5 * 4);
  CHECK(kernel_type(conv) == KernelType::kConv2DBackpropInput);
  CHECK(kernel_type(Op::make_conv(c, OpRole::kBackwardWeight)) ==
        KernelType::kConv2DBackpropFilter);
  CHECK(kernel_type(Op::make_conv(c)) == KernelType::kConv2D);
  CHECK(kernel_type(Op::make_gemm({1, 1, 1}, OpRole::kBackwardData)) == KernelType::kMatMul);
}
