#include "sim/devices/gpu_model.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "sim/devices/op_work.h"

namespace trainsim {

namespace {

struct Tile {
  int m, n;
};

// The thread-block tiles cuBLAS and cuDNN choose among: CUTLASS's SIMT SGEMM shapes (128 x 128
// and 256 x 128 for large GEMMs, narrower ones for thin outputs) and its tensor-core shapes
// (Hopper's 256 x 128 down to 64 x 64). The narrow ones let a GEMM with few columns (a
// backward-data pass onto 3 input channels) waste less of a tile.
const std::vector<Tile>& simt_tiles() {
  static const std::vector<Tile> t = {{256, 128}, {128, 128}, {128, 64}, {64, 64},
                                      {128, 32},  {128, 16},  {128, 8}};
  return t;
}
const std::vector<Tile>& tensor_tiles() {
  static const std::vector<Tile> t = {{256, 128}, {128, 128}, {128, 64},
                                      {64, 64},   {128, 32},  {128, 16}};
  return t;
}

double ceil_div(double a, double b) {
  return std::ceil(a / b);
}

// One configuration of the engine: the peak it runs at and its tiles.
struct Engine {
  const GpuSpec* spec;
  const GpuFit* fit;
  double peak_flops;  // the whole GPU's
  bool tensor;
  double bw;  // bytes per second
};

// The best compute time of a GEMM of `batch` independent M x N x K products (a grouped
// convolution's groups, a batched matmul), over tiles and splits; `efficiency` scales eta,
// `min_depth` is the least reduction per split.
double gemm_compute(const Engine& e, double batch, double m, double n, double k, double efficiency,
                    double min_depth, GpuKernelChoice* choice, double* executed = nullptr,
                    bool across_waves = false) {
  if (executed) *executed = 2 * batch * m * n * k;
  const double sms = e.spec->sm_count;
  const double per_sm = e.peak_flops / sms * e.fit->gemm_efficiency * efficiency;
  const GpuFit& f = *e.fit;
  double best = std::numeric_limits<double>::infinity();
  for (const Tile& t : e.tensor ? tensor_tiles() : simt_tiles()) {
    const double tiles = batch * ceil_div(m, t.m) * ceil_div(n, t.n);
    const double rate = per_sm / (1 + f.gemm_tile_overhead * (t.m + t.n) / (double(t.m) * t.n));
    // Splits fill the SMs one block each, none shallower than min_depth: 1, the largest, and
    // the powers of two between (the libraries' split counts). `across_waves`: as many as
    // min_depth allows, over several waves (cuDNN's weight-gradient kernels cut the images'
    // reduction into segments, "segment_k_on" in the H100's profile, whatever the tiles).
    double most = 1;
    if (across_waves)
      most = std::max(1.0, std::floor(k / min_depth));
    else if (tiles < sms)
      most = std::max(1.0, std::min(std::floor(sms / tiles), std::floor(k / min_depth)));
    for (double s = 1; s <= most; s = s * 2 > most && s < most ? most : s * 2) {
      const double waves = ceil_div(tiles * s, sms);
      double time = waves * 2.0 * t.m * t.n * (ceil_div(k, s) + f.gemm_pipeline_depth) / rate;
      // The partial sums: written by every split, read and added once.
      if (s > 1) time += 2 * s * batch * m * n * 4 / (e.bw * f.memory_efficiency);
      if (time < best) {
        best = time;
        if (choice)
          choice->tile_m = t.m, choice->tile_n = t.n, choice->splits = int(s),
          choice->blocks = tiles * s;
      }
      if (s == most) break;
    }
  }
  return best;
}

struct Timed {
  double compute = 0, memory = 0, extra = 0;  // extra: launches beyond one
  double flops = 0;                           // executed, for the power model
  double total(double launch) const { return launch + extra + std::max(compute, memory); }
};

}  // namespace

const char* gpu_precision_name(GpuPrecision p) {
  switch (p) {
    case GpuPrecision::kFp32:
      return "fp32";
    case GpuPrecision::kFp16:
      return "fp16";
    case GpuPrecision::kBf16:
      return "bf16";
  }
  return "?";
}

bool parse_gpu_precision(const std::string& text, GpuPrecision& p) {
  for (GpuPrecision q : {GpuPrecision::kFp32, GpuPrecision::kFp16, GpuPrecision::kBf16})
    if (text == gpu_precision_name(q)) {
      p = q;
      return true;
    }
  return false;
}

int gpu_precision_bytes(GpuPrecision p) {
  return p == GpuPrecision::kFp32 ? 4 : 2;
}

std::vector<GpuFitParameter> gpu_fit_parameters(GpuFit& f) {
  using R = GpuFitParameter::Range;
  std::vector<GpuFitParameter> out = {
      {"launch_us", &f.launch_us, R::kNonNegative},
      {"host_op_us", &f.host_op_us, R::kNonNegative},
      {"gemm_efficiency", &f.gemm_efficiency, R::kFraction},
      {"gemm_tile_overhead", &f.gemm_tile_overhead, R::kNonNegative},
      {"gemm_pipeline_depth", &f.gemm_pipeline_depth, R::kNonNegative},
      {"split_k_min_depth", &f.split_k_min_depth, R::kPositive},
      {"memory_efficiency", &f.memory_efficiency, R::kFraction},
      {"conv_forward", &f.conv_forward, R::kPositive},
      {"conv_backward_data", &f.conv_backward_data, R::kPositive},
      {"conv_backward_weight", &f.conv_backward_weight, R::kPositive},
      {"conv_weight_split_k_min_depth", &f.conv_weight_split_k_min_depth, R::kPositive},
      {"conv_unaligned", &f.conv_unaligned, R::kPositive},
      {"conv_layout_traffic", &f.conv_layout_traffic, R::kNonNegative},
      {"nchw_traffic", &f.nchw_traffic, R::kPositive},
      {"simt_forward", &f.simt_forward, R::kPositive},
      {"simt_backward_data", &f.simt_backward_data, R::kPositive},
      {"simt_backward_weight", &f.simt_backward_weight, R::kPositive},
      {"transform_tile_3x3", &f.transform_tile_3x3, R::kPositive},
      {"transform_tile_5x5", &f.transform_tile_5x5, R::kPositive},
      {"transform_efficiency", &f.transform_efficiency, R::kPositive},
      {"transform_traffic_forward", &f.transform_traffic_forward, R::kNonNegative},
      {"transform_traffic_backward_data", &f.transform_traffic_backward_data, R::kNonNegative},
      {"transform_traffic_backward_weight", &f.transform_traffic_backward_weight, R::kNonNegative},
      {"transform_forward_min", &f.transform_forward_min, R::kSize},
      {"transform_forward_max", &f.transform_forward_max, R::kSize},
      {"transform_backward_data_min", &f.transform_backward_data_min, R::kSize},
      {"transform_backward_data_max", &f.transform_backward_data_max, R::kSize},
      {"transform_backward_weight_min", &f.transform_backward_weight_min, R::kSize},
      {"transform_backward_weight_max", &f.transform_backward_weight_max, R::kSize},
  };
  for (int k = 0; k < kNumEltwiseKernels; ++k) {
    const std::string name =
        std::string("elementwise.") + eltwise_kernel_name(static_cast<EltwiseKernel>(k));
    GpuEltwiseFit& e = f.eltwise[static_cast<std::size_t>(k)];
    out.push_back({name + ".bandwidth", &e.bandwidth, R::kFraction});
    out.push_back({name + ".words_per_ns", &e.words_per_ns, R::kPositive});
  }
  for (GpuFitParameter p : std::vector<GpuFitParameter>{
           {"busy_w", &f.busy_w, R::kNonNegative},
           {"active_idle_w", &f.active_idle_w, R::kNonNegative},
           {"compute_w", &f.compute_w, R::kNonNegative},
           {"memory_w", &f.memory_w, R::kNonNegative},
           {"peak_over_average_w", &f.peak_over_average_w, R::kNonNegative},
           {"ipc_max", &f.ipc_max, R::kPositive},
           {"ipc_memory", &f.ipc_memory, R::kNonNegative}})
    out.push_back(p);
  return out;
}

namespace {

// Six significant digits; a value a fit drove to zero (searched as a logarithm, it only
// approaches it) is written as 0; an open bound as .inf.
std::string number(double v) {
  if (std::isinf(v)) return ".inf";
  if (std::abs(v) < 1e-9) return "0";
  char s[32];
  std::snprintf(s, sizeof s, "%.6g", v);
  return s;
}

}  // namespace

std::string gpu_fit_yaml(const GpuFit& f, int indent) {
  GpuFit copy = f;
  const std::string pad(static_cast<std::size_t>(indent), ' ');
  std::string out;
  for (const GpuFitParameter& p : gpu_fit_parameters(copy))
    if (p.key.find('.') == std::string::npos) out += pad + p.key + ": " + number(*p.value) + "\n";
  // One line per element-wise class: {bandwidth: .., words_per_ns: ..}
  out += pad + "elementwise:\n";
  for (int k = 0; k < kNumEltwiseKernels; ++k) {
    const GpuEltwiseFit& e = f.eltwise[static_cast<std::size_t>(k)];
    out += pad + "  " + eltwise_kernel_name(static_cast<EltwiseKernel>(k)) +
           ": {bandwidth: " + number(e.bandwidth) + ", words_per_ns: " + number(e.words_per_ns) +
           "}\n";
  }
  return out;
}

double gpu_eltwise_words(const Op& op) {
  double words = 0;
  for (const TensorUse& t : op.inputs) words += static_cast<double>(t.words);
  for (const TensorUse& t : op.outputs) words += static_cast<double>(t.words);
  if (words == 0)
    words = static_cast<double>(op.eltwise.elements) * (op.eltwise.reads + op.eltwise.writes);
  return words * static_cast<double>(op.repeat);
}

std::unique_ptr<DeviceModel> GpuSpec::build() const {
  return std::make_unique<GpuModel>(*this);
}

std::string GpuSpec::figures() const {
  std::string peaks;
  for (int p = 0; p < kNumGpuPrecisions; ++p) {
    if (peak_tflops[static_cast<std::size_t>(p)] <= 0) continue;
    char s[64];
    std::snprintf(s, sizeof s, "%s%g %s", peaks.empty() ? "" : ", ",
                  peak_tflops[static_cast<std::size_t>(p)],
                  gpu_precision_name(static_cast<GpuPrecision>(p)));
    peaks += s;
  }
  char s[256];
  std::snprintf(s, sizeof s, "%d SMs, TFLOP/s %s (runs %s), %g GB/s, %g MHz, %g + %g W", sm_count,
                peaks.c_str(), gpu_precision_name(precision), memory_gbps, clock_mhz, static_w,
                dynamic_max_w);
  return s;
}

GpuSpec GpuSpec::with_precision(GpuPrecision p) const {
  GpuSpec s = *this;
  s.precision = p;
  return s;
}

bool gpu_conv_runs_nchw(const GpuSpec& s, const ConvShape& c) {
  const bool tc = s.tensor() && c.channels % 8 == 0 && c.filters % 8 == 0;
  const bool rows = static_cast<std::int64_t>(c.height) * c.width % 8 == 0;
  return tc && c.kernel_h == 1 && c.kernel_w == 1 && c.stride == 1 && rows;
}

OpCost GpuModel::cost(const Op& op) {
  GpuKernelChoice choice;
  return cost(op, choice);
}

OpCost GpuModel::cost(const Op& op, GpuKernelChoice& choice) const {
  const GpuSpec& s = spec_;
  const GpuFit& f = s.fit();
  const double bw = s.memory_gbps * 1e9;
  const double beta = f.memory_efficiency;
  const double fp32_peak = s.peak(GpuPrecision::kFp32) * 1e12;
  Engine tensor{&s, &f, s.peak(s.precision) * 1e12, s.tensor(), bw};
  // A 16-bit op the tensor cores cannot take runs the CUDA-core kernels fp32 runs: their
  // GEMM parameters are the fp32 block's.
  Engine simt{&s, &s.fits[static_cast<std::size_t>(GpuPrecision::kFp32)], fp32_peak, false, bw};
  const double wb = s.word_bytes();
  const double repeat = static_cast<double>(op.repeat);
  Timed t;
  double flops = 0, bytes = 0, peak_used = fp32_peak;
  double executed = -1;  // the chosen algorithm's flops, where they differ from the op's
  choice = GpuKernelChoice{};

  switch (op.kind) {
    case OpKind::kGemm: {
      const GemmShape& g = op.gemm;
      const double m = double(g.m), n = double(g.n), k = double(g.k);
      flops = 2 * m * n * k * repeat;
      bytes = (m * k + k * n + m * n) * repeat * wb;
      t.compute = gemm_compute(tensor, repeat, m, n, k, 1, f.split_k_min_depth, &choice);
      t.memory = bytes / (bw * beta);
      choice.algorithm = "gemm";
      choice.tensor_cores = tensor.tensor;
      peak_used = tensor.peak_flops;
      break;
    }
    case OpKind::kConv: {
      const ConvShape& c = op.conv;
      const double B = double(c.batch), C = double(c.channels), H = double(c.height),
                   W = double(c.width), F = double(c.filters), R = double(c.kernel_h),
                   S = double(c.kernel_w), st = double(c.stride);
      const double Ho = double(c.out_h()), Wo = double(c.out_w());
      const OpRole pass = conv_pass(op.role);
      // Tensor-core kernels need channels in multiples of 8 (cuDNN); others run on the
      // CUDA cores at the fp32 peak, on 16-bit words all the same.
      const bool tc = s.tensor() && c.channels % 8 == 0 && c.filters % 8 == 0;
      const Engine& e = tc ? tensor : simt;
      // The convolution parameters of the kernels that run it (the fp32 block's on the CUDA
      // cores).
      const GpuFit& cf = *e.fit;
      peak_used = e.peak_flops;
      choice.tensor_cores = tc;
      flops = 2 * B * F * Ho * Wo * C * R * S * repeat;
      const double x = B * C * H * W * wb, y = B * F * Ho * Wo * wb, w = F * C * R * S * wb;
      bytes = (x + y + w) * repeat;
      // cuDNN's tensor-core kernels are NHWC: a 16-bit NCHW tensor is transposed in and out
      // (a 1x1 filter can instead run as GEMMs on the NCHW tensors: nchw_gemm below).
      const double layout = tc ? f.conv_layout_traffic * 2 * (x + y) * repeat / (bw * beta) : 0;
      const double mem = bytes / (bw * beta);
      // cuDNN's forward and data-gradient kernels run a tile's whole reduction in one block
      // (no split-K: the discriminator's last layer of DCGAN, 512 channels to 1, two blocks
      // of 8,192-deep products, takes 143 us on the H100 where 24 splits would give 10);
      // its weight-gradient kernels split their reduction over the images.
      double m = 0, n = 0, k = 0, eff = 1, depth = std::numeric_limits<double>::infinity(),
             size = Ho;
      const char* pass_name = "forward";
      double t_min = 0, t_max = 0, t_traffic = 1;
      double simt = f.simt_forward;  // 16-bit on fp32's CUDA-core kernels: this pass's speed-up
      switch (pass) {
        case OpRole::kBackwardData:
          m = B * H * W, n = C, k = std::max(1.0, F * R * S / (st * st));
          eff = cf.conv_backward_data, size = H, pass_name = "backward_data";
          simt = f.simt_backward_data;
          t_min = cf.transform_backward_data_min, t_max = cf.transform_backward_data_max;
          t_traffic = cf.transform_traffic_backward_data;
          break;
        case OpRole::kBackwardWeight:
          m = F, n = C * R * S, k = B * Ho * Wo;
          eff = cf.conv_backward_weight, depth = cf.conv_weight_split_k_min_depth;
          simt = f.simt_backward_weight;
          t_min = cf.transform_backward_weight_min, t_max = cf.transform_backward_weight_max;
          t_traffic = cf.transform_traffic_backward_weight;
          pass_name = "backward_weight";
          break;
        default:
          m = B * Ho * Wo, n = F, k = C * R * S;
          eff = cf.conv_forward;
          t_min = cf.transform_forward_min, t_max = cf.transform_forward_max;
          t_traffic = cf.transform_traffic_forward;
          break;
      }
      (void)pass_name;
      if (!tc && c.channels % 4 != 0) eff *= cf.conv_unaligned;
      if (!tc && s.tensor()) eff *= simt;
      GpuKernelChoice best_choice;
      double best = std::numeric_limits<double>::infinity();
      auto consider = [&](const char* algorithm, const Timed& cand, const GpuKernelChoice& ch) {
        const double total = cand.total(f.launch_us * 1e-6);
        if (total < best) {
          best = total;
          t = cand;
          best_choice = ch;
          best_choice.algorithm = algorithm;
        }
      };
      {
        GpuKernelChoice ch;
        Timed d;
        d.compute = gemm_compute(e, repeat, m, n, k, eff, depth, &ch, &d.flops,
                                 pass == OpRole::kBackwardWeight);
        d.memory = mem + layout;
        consider("implicit_gemm", d, ch);
      }
      // A 1x1 convolution on NCHW tensors needs no transposes: per image, a GEMM over its
      // H x W positions (Y_b = W X_b; dX_b = W^T dY_b), batched over the images, which waste
      // tiles when H x W is small; the weight gradient is one GEMM whose reduction runs over
      // the images and their positions (dW = sum_b dY_b X_b^T), split over the images as the
      // weight-gradient kernels split it. The tensor cores load a GEMM's rows 16 bytes at a
      // time, so the H x W positions of a row must come in multiples of 8 16-bit words:
      // ResNet-50's 1x1 layers at 56 x 56 and 28 x 28 take 1.2-1.3x their traffic's time in
      // bf16, those at 14 x 14 (196 positions) and 7 x 7 (49) 5-7x, as the transposes make
      // them (docs/gpu.md).
      if (gpu_conv_runs_nchw(s, c)) {
        GpuKernelChoice ch;
        Timed d;
        const double hw = H * W;
        switch (pass) {
          case OpRole::kBackwardData:
            d.compute = gemm_compute(e, B * repeat, C, hw, F, eff, depth, &ch, &d.flops);
            break;
          case OpRole::kBackwardWeight:
            d.compute = gemm_compute(e, repeat, F, C, B * hw, eff, depth, &ch, &d.flops, true);
            break;
          default:
            d.compute = gemm_compute(e, B * repeat, F, hw, C, eff, depth, &ch, &d.flops);
            break;
        }
        d.memory = mem * f.nchw_traffic;
        consider("nchw_gemm", d, ch);
      }
      if (pass == OpRole::kBackwardData && R * S > 1) {
        // dCols = dY^T W as a GEMM, then the columns added into dX (col2im): the columns are
        // written and read once.
        GpuKernelChoice ch;
        Timed d;
        const double cols = B * Ho * Wo * C * R * S * wb * repeat;
        d.compute = gemm_compute(e, repeat, B * Ho * Wo, C * R * S, F, eff, depth, &ch, &d.flops) +
                    2 * cols / (bw * beta);
        d.memory = mem + layout;
        d.extra = f.launch_us * 1e-6;
        consider("col2im", d, ch);
      }
      const bool square = c.kernel_h == c.kernel_w && (c.kernel_h == 3 || c.kernel_h == 5);
      // On the tensor cores cuDNN runs no transform: the H100's bf16 profile of AlexNet
      // (tests/data/gpu_h100/model_ops.csv) shows implicit-GEMM kernels (xmma fprop, dgrad,
      // wgrad) for all five layers' three passes, where fp32 runs FFT and Winograd kernels
      // on conv2-5.
      if (!tc && c.stride == 1 && square && c.channels >= 8 && size >= t_min && size <= t_max) {
        // Winograd / FFT: output tiles of mt x mt, each transformed to a x a, the products
        // a^2 GEMMs over the tiles, the transforms streaming the tiles through memory.
        const double mt = R == 3 ? cf.transform_tile_3x3 : cf.transform_tile_5x5;
        const double a = mt + R - 1;
        const bool data = pass == OpRole::kBackwardData;
        const double th = ceil_div(data ? H : Ho, mt), tw = ceil_div(data ? W : Wo, mt);
        const double ci = data ? F : C, co = data ? C : F;
        const double tiles = B * th * tw;
        GpuKernelChoice ch;
        Timed d;
        const double depth_t = cf.split_k_min_depth;
        d.compute = pass == OpRole::kBackwardWeight
                        ? gemm_compute(e, a * a * repeat, co, ci, tiles, cf.transform_efficiency,
                                       depth_t, &ch, &d.flops)
                        : gemm_compute(e, a * a * repeat, tiles, co, ci, cf.transform_efficiency,
                                       depth_t, &ch, &d.flops);
        d.memory = (t_traffic * tiles * a * a * (ci + co) * wb * 2 * repeat + x + y) / (bw * beta) +
                   layout;
        d.extra = 2 * f.launch_us * 1e-6;
        // The transforms run before and after the products, not beside them.
        d.compute += d.memory - layout;
        d.memory = layout;
        consider("transform", d, ch);
      }
      choice = best_choice;
      choice.tensor_cores = tc;
      executed = t.flops;
      break;
    }
    case OpKind::kElementwise: {
      const auto cls = static_cast<std::size_t>(op.eltwise.kernel);
      const GpuEltwiseFit& ef = f.eltwise[cls];
      // Optimizer state and master weights stay fp32 under mixed precision.
      const double ewb = op.eltwise.kernel == EltwiseKernel::kUpdate ? 4 : wb;
      const double words = op.eltwise.dram ? gpu_eltwise_words(op) : 0;
      bytes = words * ewb;
      flops = static_cast<double>(op.eltwise.elements) * op.eltwise.flops * repeat;
      t.memory = bytes / (bw * ef.bandwidth);
      // A pooling kernel reads every value of every window (from cache where windows
      // overlap): its instruction roof counts window values, not the tensors' words.
      const double values =
          op.eltwise.kernel == EltwiseKernel::kPooling
              ? static_cast<double>(op.eltwise.elements) * op.eltwise.reads * repeat
              : words;
      t.compute = std::max(values / (ef.words_per_ns * 1e9), flops / fp32_peak);
      choice.algorithm = eltwise_kernel_name(op.eltwise.kernel);
      // PyTorch's element-wise kernels give a block of 128 threads 4 output values each
      // (ATen/native/cuda/Loops.cuh: num_threads, thread_work_size): the grid follows the
      // outputs, not the operands read.
      const double elements = static_cast<double>(op.eltwise.elements) * repeat;
      choice.blocks = std::max(1.0, std::ceil((elements > 0 ? elements : words) / 512));
      break;
    }
  }
  choice.compute_s = t.compute;
  choice.memory_s = t.memory;
  const double time = t.total(f.launch_us * 1e-6);

  OpCost cst;
  cst.time_s = time;
  cst.bytes = bytes;
  cst.bandwidth_gbps = time > 0 ? bytes / time / 1e9 : 0;
  const double u_compute = time > 0 ? (executed >= 0 ? executed : flops) / (time * peak_used) : 0;
  const double u_memory = time > 0 ? bytes / (time * bw) : 0;
  const double dynamic =
      std::min(s.dynamic_max_w, f.busy_w + f.compute_w * u_compute + f.memory_w * u_memory);
  cst.avg_w = s.static_w + dynamic;
  cst.peak_w = std::min(s.static_w + s.dynamic_max_w, cst.avg_w + f.peak_over_average_w);
  cst.energy_j = cst.avg_w * time;
  cst.ipc = f.ipc_max * std::min(1.0, u_compute / f.gemm_efficiency + f.ipc_memory * u_memory);
  // A kernel of fewer blocks than SMs leaves the rest to a kernel of another stream.
  cst.occupancy = std::min(1.0, choice.blocks / s.sm_count);
  return cst;
}

std::unique_ptr<DeviceModel> GpuModel::at_clock(double scale, double gamma) const {
  GpuSpec s = spec_;
  s.clock_mhz *= scale;
  for (double& p : s.peak_tflops) p *= scale;
  const double power = std::pow(scale, gamma);
  s.dynamic_max_w *= power;
  for (GpuFit& f : s.fits) {
    f.busy_w *= power;
    f.active_idle_w *= power;
    f.compute_w *= power;
    f.memory_w *= power;
    f.peak_over_average_w *= power;
  }
  return std::make_unique<GpuModel>(s);
}

}  // namespace trainsim
