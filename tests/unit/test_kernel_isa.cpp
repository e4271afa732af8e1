// The numerics give the same bits whatever vector width the compiler picks (sim/nn/kernels.h):
// the kernels exist several times in the program, `native` (this build's flags: -march=native,
// AVX-512 or AVX2 on the machines trainsim runs on), `avx2` (AVX2 + FMA: an AVX2 machine's
// native kernels) and `baseline` (plain x86-64: SSE2, every 8-float vector two SSE operations,
// no FMA instruction), and every check here runs each and compares bytes: the GEMM against its
// defining loop, every layer pass on shapes that take each kernel, and short trainings of
// LeNet-5 and the seed MLP. An order that depended on the vector width (Eigen's products: 4, 8
// or 16 floats per packet) would differ between them.
#include <catch2/catch.hpp>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <sstream>

#include "sim/core/error.h"
#include "sim/core/parallel.h"
#include "sim/core/rng.h"
#include "sim/nn/conv2d.h"
#include "sim/nn/dense.h"
#include "sim/nn/kernels.h"
#include "sim/nn/network.h"
#include "sim/nn/softmax.h"
#include "sim/optim/optimizer_registry.h"
#include "sim/workload/network_config.h"
#include "sim/workload/network_lookup.h"
#include "tests/support/kernel_scope.h"

using namespace trainsim;
using test::kernel_set_names;
using test::KernelScope;

namespace {

template <typename V>
bool same_bytes(const V& a, const V& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), sizeof(a[0]) * a.size()) == 0;
}

template <typename V>
std::size_t differing(const V& a, const V& b) {
  std::size_t n = 0;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (std::memcmp(&a[i], &b[i], sizeof(a[i])) != 0) ++n;
  return n;
}

template <typename T>
std::vector<T> random_values(Rng& rng, std::size_t n) {
  std::vector<T> v(n);
  for (T& e : v) e = static_cast<T>(rng.uniform(-1, 1));
  return v;
}

struct GemmCase {
  int m, n;
  std::int64_t k;
  bool ta, tb, accumulate;
};

/// The GEMM by its definition: every output one fused multiply-add chain over p in order.
template <typename T>
std::vector<T> gemm_reference(const GemmCase& g, const std::vector<T>& a, const std::vector<T>& b,
                              std::vector<T> c) {
  for (int i = 0; i < g.m; ++i)
    for (int j = 0; j < g.n; ++j) {
      T sum = g.accumulate ? c[static_cast<std::size_t>(i) * g.n + j] : T(0);
      for (std::int64_t p = 0; p < g.k; ++p) {
        const T av = g.ta ? a[p * g.m + i] : a[i * g.k + p];
        const T bv = g.tb ? b[j * g.k + p] : b[p * g.n + j];
        sum = std::fma(av, bv, sum);
      }
      c[static_cast<std::size_t>(i) * g.n + j] = sum;
    }
  return c;
}

template <typename T>
void check_gemm(const GemmCase& g, std::uint64_t seed) {
  INFO(g.m << " x " << g.n << " over " << g.k << (g.ta ? ", A transposed" : "")
           << (g.tb ? ", B transposed" : "") << (g.accumulate ? ", accumulating" : "")
           << (sizeof(T) == 4 ? ", float" : ", double"));
  Rng rng(seed);
  const auto a = random_values<T>(rng, static_cast<std::size_t>(g.m * g.k));
  const auto b = random_values<T>(rng, static_cast<std::size_t>(g.k * g.n));
  const auto c0 = random_values<T>(rng, static_cast<std::size_t>(g.m) * g.n);
  const auto want = gemm_reference(g, a, b, c0);
  for (const std::string& set : kernel_set_names()) {
    INFO(set << " kernels");
    KernelScope scope(set);
    std::vector<T> c = c0;
    GemmArgs<T> args;
    args.m = g.m;
    args.n = g.n;
    args.k = g.k;
    args.a = a.data();
    args.a_rows = g.ta ? 1 : g.k;
    args.a_cols = g.ta ? g.m : 1;
    args.b = b.data();
    args.b_rows = g.tb ? 1 : g.n;
    args.b_cols = g.tb ? g.k : 1;
    args.c = c.data();
    args.ldc = g.n;
    args.accumulate = g.accumulate;
    kernels<T>().gemm(args);
    CHECK(differing(c, want) == 0);
  }
}

/// Outputs of a layer's three passes (y, dx, then every parameter's gradient).
template <typename T>
std::vector<AlignedVector<T>> layer_passes(Layer<T>& layer, int batch, std::uint64_t seed) {
  Rng rng(seed);
  const InitSpec init;
  layer.init(init, rng);
  Tensor<T> x(batch, layer.in_shape()), y, dy(batch, layer.out_shape()), dx;
  for (auto& v : x.vec()) v = static_cast<T>(rng.uniform(-1, 1));
  for (auto& v : dy.vec()) v = static_cast<T>(rng.uniform(-1, 1));
  layer.forward(x, y);
  layer.backward_data(x, y, dy, dx);
  // Gradients accumulate onto nonzero values, as over a batch split in two.
  for (Param<T>* p : layer.params())
    for (auto& v : p->grad.vec()) v = static_cast<T>(rng.uniform(-1, 1));
  layer.backward_weight(x, dy);
  std::vector<AlignedVector<T>> out{y.vec(), dx.vec()};
  for (Param<T>* p : layer.params()) out.push_back(p->grad.vec());
  return out;
}

struct ConvCase {
  const char* what;  // which kernels the shape takes
  Shape in;
  int filters, kernel, stride, padding, groups, batch;
};

template <typename T>
void check_layer_sets(const std::function<std::unique_ptr<Layer<T>>()>& make, int batch,
                      std::uint64_t seed) {
  std::vector<std::vector<AlignedVector<T>>> results;
  for (const std::string& set : kernel_set_names()) {
    KernelScope scope(set);
    auto layer = make();
    results.push_back(layer_passes(*layer, batch, seed));
  }
  const char* names[] = {"forward", "backward-data", "weight gradient", "bias gradient"};
  for (std::size_t set = 1; set < results.size(); ++set) {
    INFO(kernel_set_names()[set] << " against native");
    REQUIRE(results[0].size() == results[set].size());
    for (std::size_t i = 0; i < results[0].size(); ++i) {
      INFO(names[std::min<std::size_t>(i, 3)]);
      CHECK(differing(results[0][i], results[set][i]) == 0);
    }
  }
}

}  // namespace

TEST_CASE("The kernels exist as native, AVX2 and baseline (SSE2) builds", "[nn][isa]") {
  const auto& names = kernel_set_names();
  REQUIRE(names.size() >= 2);
  CHECK(names.front() == "native");
  CHECK(names.back() == "baseline");
  CHECK(std::string(kernel_sets().back()->what) == "SSE2, no FMA instruction");
  // The AVX2 machine's kernels wherever this CPU can run them (the machines trainsim is built
  // on can: they are what the AVX-512 machine's results are compared with).
  const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  CHECK((names.size() == 3 && names[1] == "avx2") == avx2);
  for (const KernelSet* s : kernel_sets()) INFO(s->name() << ": " << s->what);
  CHECK(active_kernel_set().name() == "native");
  CHECK_THROWS_WITH(use_kernels("avx1024"),
                    Catch::Contains("unknown kernel set 'avx1024'") && Catch::Contains("native"));
  CHECK(active_kernel_set().name() == "native");
}

TEST_CASE("The extra kernel builds share no code with the native one", "[nn][isa]") {
  // Everything here compares the builds, so they must really be separate: a library template
  // instantiated by two of them (Eigen's product, std::inner_product) has one name in both
  // object files, and the linker keeps a single copy for the whole program; the comparisons
  // would then pass whatever that copy's order. So every global symbol an extra build's
  // objects define must be in its namespace (sim/nn/kernel_namespace.h).
  const std::pair<const char*, const char*> builds[] = {
    {"::kernels_baseline::", TRAINSIM_BASELINE_KERNEL_OBJECTS},
#if defined(TRAINSIM_AVX2_KERNEL_OBJECTS)
    {"::kernels_avx2::", TRAINSIM_AVX2_KERNEL_OBJECTS},
#endif
  };
  for (const auto& [ns, objects] : builds) {
    std::stringstream paths(objects);
    std::string path;
    int files = 0, symbols = 0;
    while (std::getline(paths, path, ':')) {
      ++files;
      FILE* nm = ::popen(("nm -C --defined-only '" + path + "' 2>&1").c_str(), "r");
      REQUIRE(nm != nullptr);
      char line[4096];
      while (std::fgets(line, sizeof line, nm) != nullptr) {
        // "ADDRESS TYPE NAME": upper-case types are global (W, V: weak; T, D, B, R: strong).
        std::istringstream in(line);
        std::string address, type, name;
        in >> address >> type;
        std::getline(in, name);
        if (type.size() != 1 || !std::isupper(static_cast<unsigned char>(type[0]))) continue;
        // The compiler's own weak reference to the C++ personality routine (instrumented
        // builds emit it in every object that can unwind): data naming no code of ours.
        if (name.find("DW.ref.__gxx_personality_v0") != std::string::npos) continue;
        ++symbols;
        INFO(path << ": " << type << name);
        CHECK(name.find(ns) != std::string::npos);
      }
      CHECK(::pclose(nm) == 0);
    }
    CHECK(files >= 5);
    CHECK(symbols > 0);
  }
}

TEST_CASE("The GEMM is a fused multiply-add chain over the depth, on every kernel set",
          "[nn][isa]") {
  // Shapes past every block size (72 rows, 384 columns, 256 deep) and at most one vector
  // wide, transposed operands and accumulation, in float and double.
  const GemmCase cases[] = {{15, 16, 784, false, false, false}, {784, 16, 15, true, false, true},
                            {15, 784, 16, false, true, false},  {6, 784, 25, false, false, false},
                            {150, 400, 20, true, false, false}, {20, 150, 600, false, true, true},
                            {73, 385, 257, false, false, true}, {1, 1, 1, false, false, false},
                            {13, 9, 300, true, true, false},    {5, 3, 0, false, false, false}};
  std::uint64_t seed = 1;
  for (const GemmCase& g : cases) {
    check_gemm<float>(g, seed);
    check_gemm<double>(g, seed++);
  }
  Rng rng(99);
  for (int i = 0; i < 40; ++i) {
    const GemmCase g{1 + static_cast<int>(rng.below(100)),
                     1 + static_cast<int>(rng.below(100)),
                     1 + static_cast<std::int64_t>(rng.below(300)),
                     rng.below(2) == 1,
                     rng.below(2) == 1,
                     rng.below(2) == 1};
    check_gemm<float>(g, 100 + static_cast<std::uint64_t>(i));
  }
}

TEST_CASE("dot_gemm and row_sums give the same bits on every kernel set", "[nn][isa]") {
  Rng rng(5);
  for (int i = 0; i < 30; ++i) {
    const int m = 1 + static_cast<int>(rng.below(8)), n = 1 + static_cast<int>(rng.below(30));
    const std::int64_t k = 1 + static_cast<std::int64_t>(rng.below(3000));
    INFO(m << " x " << n << " over " << k);
    const auto a = random_values<float>(rng, static_cast<std::size_t>(m * k));
    const auto b = random_values<float>(rng, static_cast<std::size_t>(n * k));
    const auto c0 = random_values<float>(rng, static_cast<std::size_t>(m * n));
    std::vector<std::vector<float>> dots, sums;
    for (const std::string& set : kernel_set_names()) {
      KernelScope scope(set);
      dots.push_back(c0);
      kernels<float>().dot_gemm(a.data(), b.data(), dots.back().data(), m, n, k);
      sums.push_back(c0);
      kernels<float>().row_sums(a.data(), m, k, sums.back().data());
    }
    for (std::size_t set = 1; set < dots.size(); ++set) {
      INFO(kernel_set_names()[set] << " against native");
      CHECK(differing(dots[0], dots[set]) == 0);
      CHECK(differing(sums[0], sums[set]) == 0);
    }
    // ... and they are the sums they claim to be.
    for (int r = 0; r < m; ++r) {
      const auto at = static_cast<std::size_t>(r);
      double dot = c0[at * n], sum = c0[at];
      for (std::int64_t q = 0; q < k; ++q) {
        dot += static_cast<double>(a[r * k + q]) * b[q];
        sum += a[r * k + q];
      }
      CHECK(std::abs(dots[0][at * n] - dot) < 1e-3);
      CHECK(std::abs(sums[0][at] - sum) < 1e-3);
    }
  }
}

TEST_CASE("Conv2d and Dense passes give the same bits on every kernel set", "[nn][isa]") {
  const ConvCase convs[] = {
      {"direct, pixels in the lanes (LeNet-5 conv1)", {1, 28, 28}, 6, 5, 1, 2, 1, 9},
      {"direct, filters in the lanes (LeNet-5 conv2)", {6, 14, 14}, 16, 5, 1, 0, 1, 9},
      {"direct, 3x3 with groups", {4, 11, 9}, 10, 3, 1, 1, 2, 5},
      // AVX-512 runs the lane-independent loops on full registers (simd::Wide) and the
      // weight gradient two filters a register: a row that ends in half a step of them, a
      // filter left alone after the pairs, and filter vectors taken two and one at a time.
      {"direct, pixels in the lanes, wide rows ending in half a step", {2, 9, 9}, 9, 3, 1, 1, 1, 4},
      {"direct, filters in the lanes, 24 filters", {3, 8, 8}, 24, 3, 1, 0, 1, 4},
      {"GEMM, strided, dot_gemm backward-weight", {3, 17, 15}, 20, 3, 2, 1, 1, 6},
      {"GEMM, strided, GEMM backward-weight", {16, 12, 12}, 72, 3, 2, 1, 1, 5},
      {"GEMM, 1x1 kernel", {24, 7, 7}, 40, 1, 1, 0, 1, 4},
      {"GEMM, 11x11 stride 4 (AlexNet's conv1 shape)", {3, 35, 35}, 8, 11, 4, 2, 1, 3}};
  std::uint64_t seed = 11;
  for (const ConvCase& c : convs) {
    INFO(c.what);
    check_layer_sets<float>(
        [&] {
          return std::make_unique<Conv2d<float>>(c.in, c.filters, c.kernel, c.stride, c.padding,
                                                 true, c.groups);
        },
        c.batch, seed);
    check_layer_sets<double>(
        [&] {
          return std::make_unique<Conv2d<double>>(c.in, c.filters, c.kernel, c.stride, c.padding,
                                                  true, c.groups);
        },
        c.batch, seed++);
  }
  const struct {
    int in, units, batch;
  } dense[] = {{784, 16, 15}, {16, 10, 15}, {400, 120, 32}, {300, 200, 64}, {7, 3, 1}};
  for (const auto& d : dense) {
    INFO("dense " << d.in << " -> " << d.units << ", batch " << d.batch);
    check_layer_sets<float>(
        [&] {
          return std::make_unique<Dense<float>>(Shape{d.in, 1, 1}, d.units, true);
        },
        d.batch, seed);
    check_layer_sets<double>(
        [&] {
          return std::make_unique<Dense<double>>(Shape{d.in, 1, 1}, d.units, true);
        },
        d.batch, seed++);
  }
}

namespace {

struct TrainResult {
  std::vector<double> losses;
  std::vector<AlignedVector<float>> weights;
};

/// `batches` SGD steps of a network from configs/networks on random images and labels, on
/// two threads (so that parallel passes are covered too).
TrainResult train_steps(const std::string& network, int batches, int batch,
                        const OptimizerSpec& spec) {
  Network<float> net(load_network(*find_network_file(network, "", nullptr)));
  net.init(3);
  const auto optimizer = find_optimizer("sgd")->make(spec);
  ThreadPool pool(2);
  const ParallelScope scope(&pool);
  Rng rng(4);
  // Images of ten sparse prototypes (a fifth of the pixels lit, as in a digit), with one pixel
  // in ten redrawn, each labelled with its prototype: something to learn.
  const std::int64_t size = net.input_shape().size();
  std::vector<float> prototypes(static_cast<std::size_t>(10 * size));
  for (float& v : prototypes) v = rng.uniform() < 0.2 ? 1.0F : 0.0F;
  ForwardPass<float> pass;
  BackwardScratch<float> scratch;
  std::vector<std::uint8_t> labels(static_cast<std::size_t>(batch));
  TrainResult r;
  const auto params = net.params();
  for (int b = 0; b < batches; ++b) {
    pass.acts.resize(1);
    pass.acts[0].resize(batch, net.input_shape());
    for (int n = 0; n < batch; ++n) {
      const auto label = static_cast<std::uint8_t>(rng.below(10));
      labels[static_cast<std::size_t>(n)] = label;
      const float* proto = prototypes.data() + label * size;
      float* img = pass.acts[0].sample(n);
      for (std::int64_t i = 0; i < size; ++i)
        img[i] = rng.uniform() < 0.9 ? proto[i] : static_cast<float>(rng.uniform());
    }
    net.zero_grad();
    net.forward(pass);
    r.losses.push_back(cross_entropy_loss(pass.probs(), labels.data()));
    net.backward(pass, labels.data(), scratch);
    optimizer->step(params, batch);
  }
  for (Param<float>* p : params) r.weights.push_back(p->value.vec());
  return r;
}

}  // namespace

TEST_CASE("Short trainings of LeNet-5 and the seed MLP give the same bits on every kernel set",
          "[nn][isa]") {
  struct Run {
    const char* network;
    int batches, batch;
    OptimizerSpec sgd;
  };
  // SGD as configs/experiments/lenet5_mnist.yaml and quickstart.yaml train them.
  OptimizerSpec lenet_sgd, mlp_sgd;
  lenet_sgd.lr = 0.05;
  lenet_sgd.momentum = 0.9;
  lenet_sgd.reduction = "mean";
  mlp_sgd.lr = 0.01;
  mlp_sgd.clip = 5;
  for (const Run& run : {Run{"lenet5", 50, 32, lenet_sgd}, Run{"seed_mlp", 300, 15, mlp_sgd}}) {
    INFO(run.network << ", " << run.batches << " batches of " << run.batch);
    std::vector<TrainResult> results;
    for (const std::string& set : kernel_set_names()) {
      KernelScope scope(set);
      results.push_back(train_steps(run.network, run.batches, run.batch, run.sgd));
    }
    for (std::size_t set = 1; set < results.size(); ++set) {
      INFO(kernel_set_names()[set] << " against native");
      CHECK(same_bytes(results[0].losses, results[set].losses));
      REQUIRE(results[0].weights.size() == results[set].weights.size());
      for (std::size_t i = 0; i < results[0].weights.size(); ++i) {
        INFO("parameter " << i);
        CHECK(differing(results[0].weights[i], results[set].weights[i]) == 0);
      }
    }
    // It learned something (the comparison is of a real training): the mean loss of the last
    // tenth of the batches is below that of the first tenth.
    const auto& l = results[0].losses;
    const std::size_t tenth = l.size() / 10;
    double first = 0, last = 0;
    for (std::size_t i = 0; i < tenth; ++i) {
      first += l[i];
      last += l[l.size() - 1 - i];
    }
    INFO("mean loss of the first and the last tenth: " << first / tenth << ", " << last / tenth);
    CHECK(last < 0.9 * first);
  }
}
