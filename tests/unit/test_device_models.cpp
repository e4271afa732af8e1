// The analytic device models (sim/devices/): the GPU's invariants (time grows with work,
// bandwidth within the memory's, power between static and static + dynamic maximum) on the V100
// and H100 presets, its tiles, split-K, tensor cores, convolution algorithms and element-wise
// classes, the S10 FPGA's invariants, and an op split over several devices.
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "sim/core/paths.h"
#include "sim/devices/device_config.h"
#include "sim/devices/fpga_model.h"
#include "sim/devices/gpu_model.h"
#include "sim/devices/op_work.h"
#include "sim/devices/size_class.h"
#include "sim/workload/lowering.h"
#include "sim/workload/net_shape.h"
#include "sim/workload/network_config.h"

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

GpuSpec gpu_preset(const std::string& name) {
  return dynamic_cast<const GpuSpec&>(*load_device(name));
}

ConvShape conv3x3(std::int64_t size, std::int64_t channels) {
  ConvShape c;
  c.batch = 256, c.channels = channels, c.height = c.width = size, c.filters = channels;
  c.kernel_h = c.kernel_w = 3, c.pad = 1;
  return c;
}

}  // namespace

TEST_CASE("GPU model: time grows with work, bandwidth and power stay in bounds", "[devices][gpu]") {
  // Every shipped GPU in every precision it has a peak for.
  for (const char* name : {"v100", "h100"}) {
    const GpuSpec spec = gpu_preset(name);
    for (GpuPrecision p : {GpuPrecision::kFp32, GpuPrecision::kFp16, GpuPrecision::kBf16}) {
      if (spec.peak(p) <= 0) continue;
      const GpuSpec s = spec.with_precision(p);
      GpuModel gpu(s);
      for (const auto& ops : growing_ops()) {
        double last = 0;
        for (const Op& op : ops) {
          INFO(name << " " << gpu_precision_name(p) << ": " << op.describe());
          const OpCost c = gpu.cost(op);
          CHECK(c.supported);
          // Every algorithm's time grows with the op, so does their minimum.
          CHECK(c.time_s > last);
          last = c.time_s;
          CHECK(c.bandwidth_gbps <= s.memory_gbps * (1 + 1e-12));
          CHECK(c.bandwidth_gbps == Approx(c.bytes / c.time_s / 1e9));
          CHECK(s.static_w <= c.avg_w);
          CHECK(c.avg_w <= c.peak_w);
          CHECK(c.peak_w <= s.static_w + s.dynamic_max_w);
          CHECK(c.energy_j == Approx(c.avg_w * c.time_s));
          CHECK(c.ipc >= 0);
          CHECK(c.ipc <= s.fit().ipc_max);
        }
      }
    }
  }
  // More flops on the same bytes never take less time.
  GpuModel gpu(gpu_preset("v100"));
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

TEST_CASE("GPU model: waves of tiles over the SMs, split-K, tensor cores", "[devices][gpu]") {
  const GpuSpec h100 = gpu_preset("h100");
  GpuModel gpu(h100);
  auto achieved = [&](GpuModel& m, std::int64_t d) {
    return 2.0 * d * d * d / m.cost(Op::make_gemm({d, d, d})).time_s / 1e12;  // TFLOP/s
  };
  // A small GEMM is a fraction of a wave; a large one runs near what the H100 measured
  // (tests/data/gpu_h100: 52.0 TFLOP/s at 8192^3 in fp32, 642 in bf16).
  CHECK(achieved(gpu, 64) < 0.05 * h100.peak(GpuPrecision::kFp32));
  CHECK(achieved(gpu, 8192) == Approx(52.0).epsilon(0.05));
  GpuModel tc(h100.with_precision(GpuPrecision::kBf16));
  CHECK(achieved(tc, 8192) > 10 * achieved(gpu, 8192));
  GpuKernelChoice choice;
  tc.cost(Op::make_gemm({8192, 8192, 8192}), choice);
  CHECK(choice.tensor_cores);
  // Element-wise ops gain only the halved bytes.
  ElementwiseShape e;
  e.elements = 1 << 24;
  const Op stream = Op::make_eltwise(e, OpRole::kForward);
  CHECK(tc.cost(stream).bytes == gpu.cost(stream).bytes / 2);
  CHECK(tc.cost(stream).time_s > gpu.cost(stream).time_s / 2.5);
  // A long reduction over few results (64 x 64 outputs, K = 2^20): one tile for 132 SMs, so
  // the reduction is split; without splits (a least depth beyond K) it is many times slower.
  const Op weight = Op::make_gemm({64, 64, 1 << 20});
  gpu.cost(weight, choice);
  CHECK(choice.splits > 16);
  GpuSpec unsplit = h100;
  unsplit.fit().split_k_min_depth = 1e9;
  CHECK(GpuModel(unsplit).cost(weight).time_s > 5 * gpu.cost(weight).time_s);
  // A GEMM whose tiles fill the SMs is not split.
  gpu.cost(Op::make_gemm({4096, 4096, 4096}), choice);
  CHECK(choice.splits == 1);
}

TEST_CASE("GPU model: the convolution algorithm cuDNN would run", "[devices][gpu]") {
  const GpuSpec h100 = gpu_preset("h100");
  GpuModel fp32(h100), bf16(h100.with_precision(GpuPrecision::kBf16));
  GpuKernelChoice choice;
  // fp32, 3x3, stride 1, 28 x 28, 256 channels: the transform (Winograd) runs above the
  // direct-MAC peak, as the H100 did (vgg16_conv4_1: 134.6 "TFLOP/s").
  const Op fw28 = Op::make_conv(conv3x3(28, 256));
  const OpCost c = fp32.cost(fw28, choice);
  CHECK(choice.algorithm == "transform");
  CHECK(2.0 * fw28.macs() / c.time_s / 1e12 > h100.peak(GpuPrecision::kFp32));
  // At 56 x 56 the forward pass runs direct (implicit GEMM), at 7 x 7 too; stride 2 always.
  fp32.cost(Op::make_conv(conv3x3(56, 256)), choice);
  CHECK(choice.algorithm == "implicit_gemm");
  fp32.cost(Op::make_conv(conv3x3(7, 512)), choice);
  CHECK(choice.algorithm == "implicit_gemm");
  ConvShape strided = conv3x3(56, 128);
  strided.stride = 2;
  fp32.cost(Op::make_conv(strided), choice);
  CHECK(choice.algorithm == "implicit_gemm");
  // bf16: tensor cores when the channels are a multiple of 8, and on them every pass is an
  // implicit GEMM, transform-sized or not (the H100's bf16 kernels of AlexNet's conv2-5 are
  // all xmma implicit-GEMM ones, model_ops.csv, where fp32 runs FFT and Winograd kernels);
  // an RGB stem runs on the CUDA cores.
  for (OpRole role : {OpRole::kForward, OpRole::kBackwardData, OpRole::kBackwardWeight}) {
    bf16.cost(Op::make_conv(conv3x3(28, 256), role), choice);
    CHECK(choice.tensor_cores);
    CHECK(choice.algorithm == "implicit_gemm");
  }
  ConvShape stem = conv3x3(224, 64);
  stem.channels = 3;
  bf16.cost(Op::make_conv(stem), choice);
  CHECK_FALSE(choice.tensor_cores);
  // Its time is the CUDA-core kernels', scaled per pass by the 16-bit block's simt_* (fitted on
  // the stems' rows): a pass whose factor doubles takes about half as long, the other passes
  // and the tensor cores' convolutions the same.
  GpuSpec faster = h100.with_precision(GpuPrecision::kBf16);
  faster.fit().simt_backward_weight *= 2;
  GpuModel bf16_faster(faster);
  const Op stem_dw = Op::make_conv(stem, OpRole::kBackwardWeight), stem_fw = Op::make_conv(stem);
  CHECK(bf16_faster.cost(stem_dw).time_s < 0.6 * bf16.cost(stem_dw).time_s);
  CHECK(bf16_faster.cost(stem_fw).time_s == bf16.cost(stem_fw).time_s);
  const Op deep_dw = Op::make_conv(conv3x3(28, 256), OpRole::kBackwardWeight);
  CHECK(bf16_faster.cost(deep_dw).time_s == bf16.cost(deep_dw).time_s);
  // A weight gradient cuts its images' reduction into segments over several waves, as
  // cuDNN's wgrad kernels do ("segment_k_on"): VGG-16's conv4_2 (72 tiles of 256 x 128 on
  // 132 SMs) would otherwise fill 72 SMs or run on small tiles. A GEMM's splits fill one wave.
  bf16.cost(Op::make_conv(conv3x3(28, 512), OpRole::kBackwardWeight), choice);
  CHECK(choice.splits > 1);
  CHECK(choice.blocks > h100.sm_count);
  fp32.cost(Op::make_gemm({512, 512, 200704}), choice);
  CHECK(choice.splits > 1);
  CHECK(choice.blocks <= h100.sm_count);
  // The three passes of a convolution cost what its MACs and bytes allow, none free.
  for (OpRole role : {OpRole::kForward, OpRole::kBackwardData, OpRole::kBackwardWeight}) {
    const OpCost pass = fp32.cost(Op::make_conv(conv3x3(56, 128), role));
    CHECK(pass.time_s > 1e-4);
    CHECK(pass.time_s < 1e-2);
  }
}

TEST_CASE("GPU model: element-wise kernel classes", "[devices][gpu]") {
  GpuModel gpu(gpu_preset("h100"));
  // The same tensors streamed as a map and as a transpose: the transpose's strided writes
  // reach a smaller share of the bandwidth (the H100: about 90% against 29%).
  ElementwiseShape e;
  e.elements = 1 << 24;
  Op map = Op::make_eltwise(e, OpRole::kForward);
  Op transpose = map;
  transpose.eltwise.kernel = EltwiseKernel::kTranspose;
  CHECK(gpu.cost(transpose).time_s > 2 * gpu.cost(map).time_s);
  CHECK(gpu.cost(map).bandwidth_gbps > 0.8 * 3350);
  // Every class has a name that parses back.
  for (int k = 0; k < kNumEltwiseKernels; ++k) {
    EltwiseKernel parsed;
    REQUIRE(parse_eltwise_kernel(eltwise_kernel_name(static_cast<EltwiseKernel>(k)), parsed));
    CHECK(static_cast<int>(parsed) == k);
  }
  // The lowering classes a CNN's element-wise ops.
  const NetworkSpec spec = load_network(configs_root() + "/networks/alexnet_imagenet.yaml");
  const NetShape net(spec);
  OptimizerSpec sgd;
  sgd.momentum = 0.9;
  const std::vector<LayerOps> ops = lower_network(net, 8, 32, sgd);
  CHECK(ops[2].forward->eltwise.kernel == EltwiseKernel::kPooling);  // features.2, a max pool
  CHECK(ops[2].backward_data->eltwise.kernel == EltwiseKernel::kPoolingGrad);
  CHECK(ops[1].forward->eltwise.kernel == EltwiseKernel::kMap);  // a ReLU
  CHECK(ops[0].update->eltwise.kernel == EltwiseKernel::kUpdate);
  CHECK(ops.back().forward->eltwise.kernel == EltwiseKernel::kSoftmax);
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
