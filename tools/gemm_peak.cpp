// This machine's fp32 GEMM throughput with the threads the training numerics use: an
// N x N x N product by Eigen (a BLAS-grade kernel, with the build's flags) as the ceiling (the
// numerics use a GEMM of their own, sim/nn/kernels.h), on 1 thread and on T threads of
// trainsim's pool, each cutting C into row blocks as the layers do. tools/bench.sh divides each
// training workload's achieved FLOP/s by these figures (the roofline's compute ceiling).
//
//   gemm_peak [--size N] [--threads T] [--repeats R]   (defaults 1024, all cores, 10)
//
// Prints one line per thread count: "threads T: G GFLOP/s (best of R)". Exits 2 with a
// one-line error on bad arguments.
#include <Eigen/Core>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "sim/core/error.h"
#include "sim/core/parallel.h"
#include "tools/tool_main.h"

namespace {

using trainsim::UserError;
using Matrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

const char* const kUsage = "usage: gemm_peak [--size N] [--threads T] [--repeats R]";

// Best of `repeats` products C = A B on `threads` threads, in GFLOP/s.
double best_gflops(const Matrix& a, const Matrix& b, Matrix& c, int threads, int repeats) {
  trainsim::ThreadPool pool(threads);
  const trainsim::ParallelScope scope(&pool);
  const Eigen::Index n = a.rows();
  auto product = [&] {
    trainsim::parallel_for(threads, [&](int task, int) {
      const trainsim::IndexRange r = trainsim::split_range(n, threads, task);
      c.middleRows(r.begin, r.size()).noalias() = a.middleRows(r.begin, r.size()) * b;
    });
  };
  product();  // warm-up: page faults, pool threads awake
  double best = 1e30;
  for (int i = 0; i < repeats; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    product();
    best = std::min(best,
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  return 2.0 * static_cast<double>(n) * n * n / best / 1e9;
}

}  // namespace

int main(int argc, char** argv) {
  return trainsim::tool::run("gemm_peak", [&] {
    int size = 1024, threads = trainsim::default_threads(), repeats = 10;
    for (int i = 1; i < argc; ++i) {
      const std::string flag = argv[i];
      if (flag == "--help" || flag == "-h") {
        std::puts(kUsage);
        return 0;
      }
      if (i + 1 >= argc) throw UserError(std::string(kUsage));
      if (flag == "--size") {
        size = trainsim::tool::int_option(flag, argv[++i], 8192);
      } else if (flag == "--threads") {
        threads = trainsim::tool::int_option(flag, argv[++i], trainsim::kMaxThreads);
      } else if (flag == "--repeats") {
        repeats = trainsim::tool::int_option(flag, argv[++i], 1000);
      } else {
        throw UserError("unknown option '" + flag + "' (" + kUsage + ")");
      }
    }
    const Matrix a = Matrix::Random(size, size), b = Matrix::Random(size, size);
    Matrix c(size, size);
    std::printf("fp32 GEMM %dx%dx%d, Eigen %d.%d.%d\n", size, size, size, EIGEN_WORLD_VERSION,
                EIGEN_MAJOR_VERSION, EIGEN_MINOR_VERSION);
    for (int t : {1, threads}) {
      std::printf("threads %d: %.1f GFLOP/s (best of %d)\n", t, best_gflops(a, b, c, t, repeats),
                  repeats);
      if (threads == 1) break;
    }
    return 0;
  });
}
