// Where a training batch's time goes: wall time of every layer's forward, backward-data and
// backward-weight pass of a network on one batch of random data, on T threads (trainsim's
// pool, as a run uses it), with the GFLOP/s of the dense and conv passes; then, for every
// conv layer, its backward-weight product on one block's shape done both ways the layer
// can do it (the GEMM kernel, dot_gemm), which is how Conv2d picks one (docs/benchmarks.md).
//
//   layer_times [--network NAME] [--batch B] [--threads T] [--repeats R]
//               (defaults lenet5, 32, all cores, 300)
//
// Exits 2 with a one-line error on bad arguments or an unknown network.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

#include "sim/core/error.h"
#include "sim/core/parallel.h"
#include "sim/core/paths.h"
#include "sim/core/rng.h"
#include "sim/nn/kernels.h"
#include "sim/nn/layer_registry.h"
#include "sim/nn/network.h"
#include "sim/workload/network_config.h"
#include "sim/workload/network_lookup.h"
#include "tools/tool_main.h"

namespace {

using trainsim::UserError;
using Clock = std::chrono::steady_clock;

const char* const kUsage =
    "usage: layer_times [--network NAME] [--batch B] [--threads T] [--repeats R]";

double seconds(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

struct Options {
  std::string network = "lenet5";
  int batch = 32, threads = trainsim::default_threads(), repeats = 300;
};

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (flag == "--help" || flag == "-h") {
      std::puts(kUsage);
      std::exit(0);
    }
    if (i + 1 >= argc) throw UserError(kUsage);
    if (flag == "--network") {
      o.network = argv[++i];
    } else if (flag == "--batch") {
      o.batch = trainsim::tool::int_option(flag, argv[++i], 4096);
    } else if (flag == "--threads") {
      o.threads = trainsim::tool::int_option(flag, argv[++i], trainsim::kMaxThreads);
    } else if (flag == "--repeats") {
      o.repeats = trainsim::tool::int_option(flag, argv[++i], 100000);
    } else {
      throw UserError("unknown option '" + flag + "' (" + kUsage + ")");
    }
  }
  return o;
}

// Times every pass of every layer; prints one line per layer and the batch total.
void time_layers(trainsim::Network<float>& net, const Options& o) {
  using namespace trainsim;
  ForwardPass<float> pass;
  pass.acts.resize(1);
  pass.acts[0].resize(o.batch, net.input_shape());
  Rng rng(1);
  for (auto& v : pass.acts[0].vec()) v = static_cast<float>(rng.uniform(0, 1));
  net.forward(pass);
  const std::size_t n = net.size();
  std::vector<double> fw(n), bd(n), bw(n);
  std::vector<Tensor<float>> dy(n);
  for (std::size_t i = 0; i < n; ++i) {
    dy[i].resize(o.batch, net.layer(i).out_shape());
    for (auto& v : dy[i].vec()) v = static_cast<float>(rng.uniform(-0.01, 0.01));
  }
  // One input gradient per layer, as in training: a tensor shared by all layers would be
  // resized (and its growth zero-filled) inside the timed passes.
  std::vector<Tensor<float>> dx(n);
  for (int r = 0; r < o.repeats; ++r) {
    for (std::size_t i = 0; i < n; ++i) {
      auto t0 = Clock::now();
      net.layer(i).forward(pass.acts[i], pass.acts[i + 1]);
      fw[i] += seconds(t0);
      if (net.has_params(i)) {
        t0 = Clock::now();
        net.layer(i).backward_weight(pass.acts[i], dy[i]);
        bw[i] += seconds(t0);
      }
      if (net.needs_input_grad(i)) {
        t0 = Clock::now();
        net.layer(i).backward_data(pass.acts[i], pass.acts[i + 1], dy[i], dx[i]);
        bd[i] += seconds(t0);
      }
    }
  }
  std::printf("%-12s %-10s %12s %12s %12s   (microseconds per batch; GFLOP/s)\n", "layer", "type",
              "forward", "bwd-data", "bwd-weight");
  double total = 0, flops = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double macs = static_cast<double>(net.layer(i).forward_macs()) * o.batch;
    auto cell = [&](double sum, bool ran) {
      char buf[32];
      if (!ran) return std::string("-");
      const double us = sum / o.repeats * 1e6;
      if (macs > 0) {
        std::snprintf(buf, sizeof buf, "%.1f (%.0f)", us, 2 * macs / (us * 1e3));
      } else {
        std::snprintf(buf, sizeof buf, "%.1f", us);
      }
      return std::string(buf);
    };
    std::printf("%-12s %-10s %12s %12s %12s\n", net.layer_spec(i).name.c_str(),
                net.layer(i).type().c_str(), cell(fw[i], true).c_str(),
                cell(bd[i], net.needs_input_grad(i)).c_str(),
                cell(bw[i], net.has_params(i)).c_str());
    total += fw[i] + bd[i] + bw[i];
    flops += 2 * macs * (1 + (net.has_params(i) ? 1 : 0) + (net.needs_input_grad(i) ? 1 : 0));
  }
  const double per_batch = total / o.repeats;
  std::printf("total %.1f us per batch of %d on %d thread(s): %.1f GFLOP/s\n", per_batch * 1e6,
              o.batch, o.threads, flops / per_batch / 1e9);
}

// dW[m x n] += dY[m x depth] cols[n x depth]^T, both ways; GFLOP/s of each.
void compare_weight_kernels(const std::string& name, int m, int n, std::int64_t depth) {
  trainsim::Rng rng(1);
  std::vector<float> a(static_cast<std::size_t>(m * depth)), b(static_cast<std::size_t>(n * depth));
  for (float& v : a) v = static_cast<float>(rng.uniform(-1, 1));
  for (float& v : b) v = static_cast<float>(rng.uniform(-1, 1));
  std::vector<float> c(static_cast<std::size_t>(m) * n, 0.0F);
  const int reps = static_cast<int>(std::max<std::int64_t>(20, 200000000 / (m * n * depth)));
  auto rate = [&](auto&& f) {
    f();
    const auto t0 = Clock::now();
    for (int r = 0; r < reps; ++r) f();
    return 2.0 * m * n * static_cast<double>(depth) * reps / seconds(t0) / 1e9;
  };
  const auto& k = trainsim::kernels<float>();
  trainsim::GemmArgs<float> g;
  g.m = m;
  g.n = n;
  g.k = depth;
  g.a = a.data();
  g.a_rows = depth;
  g.a_cols = 1;
  g.b = b.data();  // cols^T
  g.b_rows = 1;
  g.b_cols = depth;
  g.c = c.data();
  g.ldc = n;
  g.accumulate = true;
  const double gemm = rate([&] { k.gemm(g); });
  const double dot = rate([&] { k.dot_gemm(a.data(), b.data(), c.data(), m, n, depth); });
  std::printf("%-12s backward-weight %d x %d over %lld: GEMM %.1f GFLOP/s, dot_gemm %.1f\n",
              name.c_str(), m, n, static_cast<long long>(depth), gemm, dot);
}

}  // namespace

int main(int argc, char** argv) {
  return trainsim::tool::run("layer_times", [&] {
    const Options o = parse(argc, argv);
    const auto file = trainsim::find_network_file(o.network, "", nullptr);
    if (!file) throw UserError("unknown network '" + o.network + "'");
    trainsim::Network<float> net(trainsim::load_network(*file));
    net.init(1);
    trainsim::ThreadPool pool(o.threads);
    const trainsim::ParallelScope scope(&pool);
    time_layers(net, o);
    std::puts("one block (batch / 8 samples) of each conv layer's backward-weight, 1 thread:");
    for (std::size_t i = 0; i < net.size(); ++i) {
      const trainsim::LayerSpec& ls = net.layer_spec(i);
      if (trainsim::layer_family(ls.type) != trainsim::LayerFamily::kConv) continue;
      const trainsim::Shape in = net.layer(i).in_shape(), out = net.layer(i).out_shape();
      const int patch = in.c / ls.groups * ls.kernel * ls.kernel;
      const std::int64_t depth =
          std::max(1, o.batch / trainsim::kMaxThreads) * static_cast<std::int64_t>(out.h) * out.w;
      compare_weight_kernels(ls.name, ls.filters / ls.groups, patch, depth);
    }
    return 0;
  });
}
