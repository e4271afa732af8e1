// The gpu device model against the measured H100 (tests/data/gpu_h100, sim/gpu/): the
// measurements load as trainsim ops, the fit reproduces the shipped h100 preset, the per-op
// errors (in-sample and leave-one-out) and the whole iterations are what docs/gpu.md reports,
// leave-one-out predicts a group without its rows, and bad measurement files are one-line
// errors.
#include <catch2/catch.hpp>

#include <cmath>
#include <map>

#include "sim/core/csv.h"
#include "sim/core/error.h"
#include "sim/core/paths.h"
#include "sim/devices/device_config.h"
#include "sim/devices/gpu_model.h"
#include "sim/gpu/calibration.h"
#include "sim/gpu/iteration.h"
#include "sim/io/file_set.h"
#include "tests/support/temp_dir.h"

using namespace trainsim;

namespace {

const std::string kData = TRAINSIM_SOURCE_DIR "/tests/data/gpu_h100";

GpuSpec h100() {
  return dynamic_cast<const GpuSpec&>(*load_device("h100"));
}

const GpuMeasurements& data() {
  static const GpuMeasurements d = load_gpu_measurements(kData);
  return d;
}

// The calibration of the shipped h100 on the shipped data, computed once (a few seconds).
const GpuCalibrationResult& shipped() {
  static const GpuCalibrationResult r = calibrate_gpu(h100(), data());
  return r;
}

const GpuClassError& error(GpuPrecision p, const std::string& cls) {
  for (const GpuClassError& e : shipped().errors)
    if (e.precision == p && e.cls == cls) return e;
  throw std::logic_error("no class " + cls);
}

const GpuIterationResult& iteration(const std::vector<GpuIterationResult>& its,
                                    const std::string& model, GpuPrecision p) {
  for (const GpuIterationResult& it : its)
    if (it.model == model && it.precision == p) return it;
  throw std::logic_error("no iteration " + model);
}

}  // namespace

TEST_CASE("H100 measurements load as trainsim ops", "[gpu]") {
  const GpuMeasurements& d = data();
  REQUIRE(d.ops.size() == 70 + 156 + 96);
  CHECK(d.iterations.size() == 4);
  CHECK(d.profile.size() == 446);
  std::map<std::string, int> classes, groups;
  for (const GpuMeasuredOp& o : d.ops) {
    ++classes[o.cls.name()];
    if (o.cls.kind != GpuOpClass::Kind::kEltwise) ++groups[o.group];
  }
  CHECK(classes["gemm"] == 70);
  CHECK(classes["conv"] == 156);
  CHECK(classes["map"] == 32);        // Mul, Add, Relu, ReluGrad
  CHECK(classes["reduction"] == 16);  // BiasAddGrad, L2Loss
  // Per precision: AlexNet's 5 convolutions, VGG-16's 9 distinct ones, ResNet-50's 12, each in
  // three passes; Table 1's 27 size classes and 8192^3, 3 classifier GEMMs, 4 of BERT-Large.
  CHECK(
      groups ==
      std::map<std::string, int>{
          {"alexnet", 30}, {"bert", 8}, {"fc", 6}, {"grid", 56}, {"resnet50", 72}, {"vgg16", 54}});
  // matmul.csv's MxKxN is trainsim's GEMM M, N, K; a conv row its layer in its pass.
  const GpuMeasuredOp& mm = d.ops[1];  // 256x256x1024
  CHECK(mm.model_op.gemm == GemmShape{256, 1024, 256});
  const GpuMeasuredOp& conv = d.ops[70 + 1];  // alexnet_conv1 Conv2DBackpropInput
  CHECK(conv.model_op.role == OpRole::kBackwardData);
  CHECK(conv.model_op.conv.out_h() == 55);
  CHECK(conv.model_op.macs() != 0);
  // An element-wise op lists the tensors it reads and writes, as the lowering would.
  const GpuMeasuredOp& add = d.ops[70 + 156 + 1];  // Add, 65536
  CHECK(add.op == "Add");
  CHECK(gpu_eltwise_words(add.model_op) == 3 * 65536);
}

TEST_CASE("The gpu fit reproduces the shipped h100 preset", "[gpu]") {
  const GpuCalibrationResult& r = shipped();
  const GpuSpec file = h100();
  REQUIRE(r.precisions == std::vector<GpuPrecision>{GpuPrecision::kFp32, GpuPrecision::kBf16});
  for (GpuPrecision p : r.precisions) {
    GpuFit fitted = r.gpu.fits[static_cast<std::size_t>(p)];
    GpuFit shipped_fit = file.fits[static_cast<std::size_t>(p)];
    const auto a = gpu_fit_parameters(fitted), b = gpu_fit_parameters(shipped_fit);
    for (std::size_t i = 0; i < a.size(); ++i) {
      INFO(gpu_precision_name(p) << " " << a[i].key << ": fit " << *a[i].value << ", file "
                                 << *b[i].value
                                 << " (re-run trainsim gpu-calibrate and copy its fit: block)");
      if (std::isinf(*a[i].value))
        CHECK(std::isinf(*b[i].value));
      else  // six significant digits in the file
        CHECK(*b[i].value == Approx(*a[i].value).epsilon(1e-5).margin(1e-9));
    }
  }
  // The fit starts from GpuFit's initial values, not the device file's.
  GpuSpec other = file;
  other.fits[0].gemm_efficiency = 0.2, other.fits[2].busy_w = 1;
  GpuCalibrationOptions quick;
  quick.leave_one_out = false;
  const GpuCalibrationResult again = calibrate_gpu(other, data(), quick);
  CHECK(again.gpu.fits[0].gemm_efficiency == r.gpu.fits[0].gemm_efficiency);
  CHECK(again.gpu.fits[2].busy_w == r.gpu.fits[2].busy_w);
}

TEST_CASE("Per-op errors of the gpu model on the H100", "[gpu]") {
  // docs/gpu.md's table: mean absolute percentage errors as they are, a little rounded up.
  using P = GpuPrecision;
  struct Bound {
    P p;
    const char* cls;
    double time, lomo, energy;
  };
  const std::vector<Bound> bounds = {
      {P::kFp32, "gemm", 5.5, 13, 45},
      {P::kFp32, "conv", 17, 33, 30},
      {P::kFp32, "all element-wise", 10, NAN, 35},
      {P::kBf16, "gemm", 13.5, 15, 38},
      {P::kBf16, "conv", 10, 15, 27},
      {P::kBf16, "all element-wise", 12.5, NAN, 45},
  };
  for (const Bound& b : bounds) {
    const GpuClassError& e = error(b.p, b.cls);
    INFO(gpu_precision_name(b.p) << " " << b.cls << ": time " << e.time_mape << "%, leave-out "
                                 << e.time_lomo_mape << "%, energy " << e.energy_mape << "%");
    CHECK(e.time_mape <= b.time);
    if (!std::isnan(b.lomo)) CHECK(e.time_lomo_mape <= b.lomo);
    CHECK(e.energy_mape <= b.energy);
  }
  // The GEMMs whose time is the device's, not the measuring loop's: within 6% in both.
  CHECK(error(P::kFp32, "gemm").device_time_mape < 2);
  CHECK(error(P::kBf16, "gemm").device_time_mape < 6);
  // Leave-one-out is done for the GEMM and convolution rows only, and differs from in-sample.
  CHECK(std::isnan(error(P::kFp32, "map").time_lomo_mape));
  CHECK(error(P::kFp32, "conv").time_lomo_mape > error(P::kFp32, "conv").time_mape);
}

TEST_CASE("Leave-one-out predicts a network without its rows", "[gpu]") {
  // VGG-16's measured times tripled: its in-sample predictions move, its leave-one-out ones
  // (fitted without VGG-16) do not.
  GpuMeasurements changed = data();
  for (GpuMeasuredOp& o : changed.ops)
    if (o.group == "vgg16") o.seconds *= 3;
  GpuCalibrationOptions no_host;
  no_host.fit_host = false;
  const GpuCalibrationResult a = calibrate_gpu(h100(), data(), no_host);
  const GpuCalibrationResult b = calibrate_gpu(h100(), changed, no_host);
  int vgg = 0;
  for (std::size_t i = 0; i < changed.ops.size(); ++i) {
    if (changed.ops[i].group != "vgg16") continue;
    ++vgg;
    CHECK(b.rows[i].lomo_seconds == Approx(a.rows[i].lomo_seconds).epsilon(1e-9));
  }
  CHECK(vgg == 54);
  CHECK(b.gpu.fits[0].conv_forward != a.gpu.fits[0].conv_forward);
}

TEST_CASE("A fit leaves a kernel class's parameter alone when no row can run it", "[gpu]") {
  // Only ResNet-50 has 1x1 filters: fitted without its rows (as leave-one-out fits), the NCHW
  // kernels' traffic keeps GpuFit's initial value rather than drifting with the search.
  GpuMeasurements no_resnet = data();
  std::vector<GpuMeasuredOp> kept;
  for (const GpuMeasuredOp& o : no_resnet.ops)
    if (o.group != "resnet50") kept.push_back(o);
  no_resnet.ops = kept;
  GpuCalibrationOptions quick;
  quick.leave_one_out = false, quick.fit_host = false;
  const std::size_t bf16 = static_cast<std::size_t>(GpuPrecision::kBf16);
  CHECK(calibrate_gpu(h100(), no_resnet, quick).gpu.fits[bf16].nchw_traffic ==
        GpuFit{}.nchw_traffic);
  CHECK(calibrate_gpu(h100(), data(), quick).gpu.fits[bf16].nchw_traffic > 1.1);
}

TEST_CASE("Forward and data-gradient convolutions do not split their reduction", "[gpu]") {
  // DCGAN's last discriminator layer, 512 channels of 4 x 4 to one output: a 256 x 1 x 8,192
  // product. model_ops.csv (tests/data/gpu_h100) has its forward pass at 142.8 us of device
  // time on the H100 in fp32: two thread blocks running the whole reduction, as cuDNN's
  // forward kernels do. Split 24 ways, as a GEMM may be, it came out 10 us.
  const GpuModel gpu(h100());
  ConvShape c;
  c.batch = 256, c.channels = 512, c.height = c.width = 4, c.filters = 1;
  c.kernel_h = c.kernel_w = 4, c.stride = 1, c.pad = 0;
  GpuKernelChoice fw;
  const OpCost f = gpu.cost(Op::make_conv(c, OpRole::kForward), fw);
  CHECK(fw.splits == 1);
  CHECK(f.time_s * 1e6 == Approx(142.8).epsilon(0.10));
  GpuKernelChoice data;
  gpu.cost(Op::make_conv(c, OpRole::kBackwardData), data);
  CHECK(data.splits == 1);
  // A weight gradient with few output tiles and a deep reduction (DCGAN's second
  // discriminator layer, 64 -> 128 channels at 32 x 32: 128 x 1,024 filter values over
  // 256 x 16 x 16 outputs) is split over its images.
  ConvShape deep = c;
  deep.channels = 64, deep.filters = 128, deep.height = deep.width = 32;
  deep.stride = 2, deep.pad = 1;
  GpuKernelChoice dw;
  gpu.cost(Op::make_conv(deep, OpRole::kBackwardWeight), dw);
  CHECK(dw.splits > 1);
}

TEST_CASE("A 16-bit 1x1 convolution runs on NCHW rows only where they are 16-byte aligned",
          "[gpu]") {
  // ResNet-50's 1x1 layers in bf16 (conv.csv): at 28 x 28 (784 positions a row) the forward
  // pass takes 98 us, near its 256 MB of traffic; at 14 x 14 (196 positions, rows not a
  // multiple of 8 words) 193 us for half that traffic: the tensor cores' NHWC kernels and
  // their transposes.
  const GpuModel gpu(h100().with_precision(GpuPrecision::kBf16));
  ConvShape c;
  c.batch = 256, c.kernel_h = c.kernel_w = 1, c.stride = 1, c.pad = 0;
  c.channels = 128, c.filters = 512, c.height = c.width = 28;
  for (OpRole role : {OpRole::kForward, OpRole::kBackwardData, OpRole::kBackwardWeight}) {
    GpuKernelChoice ch;
    gpu.cost(Op::make_conv(c, role), ch);
    CHECK(std::string(ch.algorithm) == "nchw_gemm");
  }
  ConvShape odd = c;
  odd.channels = 256, odd.filters = 1024, odd.height = odd.width = 14;
  GpuKernelChoice ch;
  const OpCost slow = gpu.cost(Op::make_conv(odd, OpRole::kForward), ch);
  CHECK(std::string(ch.algorithm) == "implicit_gemm");
  // The transposes cost more than the traffic the convolution itself moves.
  const double traffic_s = 2.0 * 256 * (256 + 1024) * 196 / (h100().memory_gbps * 1e9);
  CHECK(slow.time_s > 2 * traffic_s);
  // The same layer at 16 x 16 (256 positions) takes the NCHW GEMMs again.
  odd.height = odd.width = 16;
  gpu.cost(Op::make_conv(odd, OpRole::kForward), ch);
  CHECK(std::string(ch.algorithm) == "nchw_gemm");
  CHECK(gpu_conv_runs_nchw(gpu.spec(), odd));
  ConvShape fourteen = odd;
  fourteen.height = fourteen.width = 14;
  CHECK_FALSE(gpu_conv_runs_nchw(gpu.spec(), fourteen));
  // Their bytes take nchw_traffic times their time at the GEMMs' bandwidth (fitted at 1.22 on
  // ResNet-50's aligned 1x1 layers): a layer bound by its traffic takes that much longer, one
  // bound by its products does not change.
  ConvShape wide = c;
  wide.channels = wide.filters = 64, wide.height = wide.width = 56;
  GpuSpec slower = h100().with_precision(GpuPrecision::kBf16);
  slower.fit().nchw_traffic *= 2;
  const GpuModel gpu_slower(slower);
  auto time = [](const GpuModel& m, const Op& op) {
    GpuKernelChoice k;
    return m.cost(op, k).time_s;
  };
  const Op streamed = Op::make_conv(wide, OpRole::kForward);
  const double launch = slower.fit().launch_us * 1e-6;
  CHECK(time(gpu_slower, streamed) - launch ==
        Approx(2 * (time(gpu, streamed) - launch)).epsilon(1e-9));
  ConvShape wide3 = wide;
  wide3.kernel_h = wide3.kernel_w = 3, wide3.pad = 1;
  const Op three = Op::make_conv(wide3, OpRole::kForward);
  CHECK(time(gpu_slower, three) == time(gpu, three));
}

TEST_CASE("Whole AlexNet and DCGAN iterations on the fitted H100", "[gpu]") {
  const std::vector<GpuIterationResult> its = price_gpu_iterations(h100(), data());
  REQUIRE(its.size() == 4);
  using P = GpuPrecision;
  // Time within 5% and energy within 10% of models.csv (issue 32). DCGAN in bf16 is a
  // host-bound iteration whose time determined the host's time per op (host_op_us): its time
  // is the fit's, so its bound only checks the fit (docs/gpu.md).
  struct Bound {
    const char* model;
    P p;
    double time_pct, energy_pct;
  };
  for (const Bound& b : {Bound{"alexnet", P::kFp32, 5, 10}, Bound{"alexnet", P::kBf16, 5, 10},
                         Bound{"dcgan", P::kFp32, 5, 10}, Bound{"dcgan", P::kBf16, 1, 10}}) {
    const GpuIterationResult& it = iteration(its, b.model, b.p);
    INFO(b.model << " " << gpu_precision_name(b.p) << ": " << it.seconds * 1e3 << " ms against "
                 << it.measured_s * 1e3 << ", " << it.joules << " J against " << it.measured_j);
    CHECK(std::abs(it.seconds / it.measured_s - 1) * 100 <= b.time_pct);
    CHECK(std::abs(it.joules / it.measured_j - 1) * 100 <= b.energy_pct);
  }
  // AlexNet and DCGAN in fp32 are device-bound: the host's issue time hides behind the ops.
  for (const char* m : {"alexnet", "dcgan"}) {
    const GpuIterationResult& it = iteration(its, m, P::kFp32);
    CHECK(it.host_s < it.device_s);
  }
  const GpuIterationResult& dcgan16 = iteration(its, "dcgan", P::kBf16);
  CHECK(dcgan16.host_s > dcgan16.device_s);
  // Mixed precision casts every GEMM's and convolution's weights and biases each way, the
  // input once, and the loss's input up and its gradient down: as many casts as the
  // profile's copy_ calls (35 for AlexNet, 23 for DCGAN, whose layers have no biases).
  auto casts = [](const GpuIterationResult& it) {
    int n = 0;
    for (const GpuIterationOp& o : it.ops) n += o.type == "Cast" ? 1 : 0;
    return n;
  };
  const GpuIterationResult& alex16 = iteration(its, "alexnet", P::kBf16);
  CHECK(casts(alex16) == 2 * (8 + 8) + 1 + 2);
  CHECK(casts(dcgan16) == 2 * 10 + 1 + 2);
  CHECK(casts(iteration(its, "alexnet", P::kFp32)) == 0);
  // Batch norm's backward pass is one kernel, as cuDNN's: DCGAN's 7 batch-norm layers give 7
  // normalization-gradient ops (the profile's 7 cudnn_batch_norm_backward calls).
  for (P p : {P::kFp32, P::kBf16}) {
    int bn_grads = 0;
    for (const GpuIterationOp& o : iteration(its, "dcgan", p).ops)
      bn_grads += o.category == "normalization grad" ? 1 : 0;
    CHECK(bn_grads == 7);
  }
  // The per-category table has the profile's categories.
  const auto rows = parse_csv(alex16.types_csv);
  CHECK(rows[0] == std::vector<std::string>{"category", "model_ops", "model_us", "profile_calls",
                                            "profile_us", "error_pct"});
  bool conv_backward = false;
  for (const auto& row : rows) conv_backward = conv_backward || row[0] == "conv backward";
  CHECK(conv_backward);
}

TEST_CASE("PyTorch's op names map to trainsim's categories", "[gpu]") {
  GpuProfiledOp p;
  p.op = "aten::cudnn_convolution";
  CHECK(gpu_aten_category(p) == "conv forward");
  p.op = "aten::convolution_backward";
  CHECK(gpu_aten_category(p) == "conv backward");
  p.op = "aten::add_";
  p.input_shapes = "[[256, 64, 55, 55], [1, 64, 1, 1], []]";
  CHECK(gpu_aten_category(p) == "bias add");
  p.input_shapes = "[[], [], []]";
  CHECK(gpu_aten_category(p) == "other");
  p.op = "aten::_foreach_add_";
  CHECK(gpu_aten_category(p) == "update");
  // A kernel row repeats its aten op's time: not counted.
  p.op = "void implicit_convolve_sgemm<float, float>(int)";
  CHECK(gpu_aten_category(p).empty());
  // Every measured op name has a kernel class.
  for (const GpuMeasuredOp& o : data().ops) {
    GpuOpClass cls;
    CHECK(gpu_op_class(o.op, cls));
  }
}

TEST_CASE("Bad measurement files are one-line errors naming file and line", "[gpu]") {
  const trainsim::test::TempDir tmp("gpu-measurements");
  const std::string dir = tmp.path();
  auto copy = [&](const std::string& name, const std::string& text) {
    write_text_file(dir + "/" + name, text);
  };
  const std::string good_conv = read_text_file(kData + "/conv.csv");
  for (const char* f : {"matmul.csv", "elementwise.csv", "models.csv", "model_ops.csv"})
    copy(f, read_text_file(kData + "/" + f));
  copy("conv.csv", good_conv);
  CHECK(load_gpu_measurements(dir).ops.size() == 322);
  auto message = [&] {
    try {
      load_gpu_measurements(dir);
    } catch (const UserError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  // A missing column.
  copy("conv.csv", "op,precision,layer\nConv2D,fp32,x\n");
  std::string m = message();
  CHECK(m.find("conv.csv:1: missing column 'input'") != std::string::npos);
  CHECK(m.find('\n') == std::string::npos);
  // An op with no kernel class.
  const std::string header = good_conv.substr(0, good_conv.find('\n') + 1);
  const std::string row =
      good_conv.substr(header.size(), good_conv.find('\n', header.size()) - header.size() + 1);
  copy("conv.csv", header + "Conv3D" + row.substr(row.find(',')));
  m = message();
  CHECK(m.find("conv.csv:2: op 'Conv3D' has no kernel class (known: MatMul, Conv2D") !=
        std::string::npos);
  // An output that the layer's shape does not give.
  std::string wrong = row;
  wrong.replace(wrong.find("256x64x55x55"), 12, "256x64x54x55");
  copy("conv.csv", header + wrong);
  CHECK(message().find("conv.csv:2: output 256x64x54x55 is not what") != std::string::npos);
  copy("conv.csv", good_conv);
  copy("elementwise.csv", "op,precision,elements,seconds,joules\nMul,fp64,1,1,1\n");
  CHECK(message().find("elementwise.csv:2: precision: expected fp32, fp16 or bf16") !=
        std::string::npos);
}
